export type OwnerMap = Record<string, string[] | string>;
export const SQL_PLUMBING: string[];
export function ownerOf(ownerMap: OwnerMap): Map<string, string>;
export function houseViolations(files: Map<string, string>, ownerMap: OwnerMap): string[];
