/**
 * Automatic placement of nodes on the editor canvas. Column 0 is the Request node, column 1 the first
 * batch of processing nodes after it; rows go down. Pure.
 */
export const COLUMN_WIDTH = 360;
export const ROW_HEIGHT = 220;
export const ORIGIN = { x: 80, y: 80 };

export function positionFor(column: number, row: number): { x: number; y: number } {
  return { x: ORIGIN.x + column * COLUMN_WIDTH, y: ORIGIN.y + row * ROW_HEIGHT };
}

/** The column a position falls in (nearest), for finding free rows. */
export function columnOf(x: number): number {
  return Math.max(0, Math.round((x - ORIGIN.x) / COLUMN_WIDTH));
}

/** The first row of `column` not taken by any of the given positions. */
export function firstFreeRow(column: number, taken: Array<{ x: number; y: number }>): number {
  const rows = new Set(taken.filter((p) => columnOf(p.x) === column).map((p) => Math.round((p.y - ORIGIN.y) / ROW_HEIGHT)));
  let row = 0;
  while (rows.has(row)) row++;
  return row;
}
