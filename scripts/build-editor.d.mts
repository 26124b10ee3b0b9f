export const EDITOR_OUT: string;
export function editorIsCurrent(): boolean;
export function ensureEditorBuilt(opts?: { quiet?: boolean }): Promise<boolean>;
