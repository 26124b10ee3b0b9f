export const BUILD_DIR: string;
export function compiledState(): 'absent' | 'stale' | 'current';
