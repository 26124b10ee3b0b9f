import { EngineInputError } from '../../../types.js';

/**
 * Typed reads of an input that the service already validated against the mode's schema (defaults filled).
 * They still check the type so that an engine called directly (tests, workflows) fails with a clear message.
 */
export type Input = Record<string, unknown>;

export function str(input: Input, name: string, fallback?: string): string {
  const v = input[name] ?? fallback;
  if (typeof v !== 'string') throw new EngineInputError(`${name} must be a string`);
  return v;
}

export function optStr(input: Input, name: string): string | undefined {
  const v = input[name];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new EngineInputError(`${name} must be a string`);
  return v;
}

export function num(input: Input, name: string, fallback?: number): number {
  const raw = input[name] ?? fallback;
  const v = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new EngineInputError(`${name} must be a number`);
  return v;
}

export function optNum(input: Input, name: string): number | undefined {
  const v = input[name];
  return v === undefined || v === null || v === '' ? undefined : num(input, name);
}

export function bool(input: Input, name: string, fallback = false): boolean {
  const v = input[name] ?? fallback;
  if (typeof v !== 'boolean') throw new EngineInputError(`${name} must be true or false`);
  return v;
}

export function strList(input: Input, name: string): string[] {
  const v = input[name];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new EngineInputError(`${name} must be a list of URLs`);
  return v as string[];
}

/** A whole number within bounds (validation already checked them; clamping keeps direct calls safe). */
export function int(input: Input, name: string, fallback: number, min: number, max: number): number {
  return Math.max(min, Math.min(max, Math.round(num(input, name, fallback))));
}
