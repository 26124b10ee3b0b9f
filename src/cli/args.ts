import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A mistake in how the command was called: printed as one line, exit code 2. */
export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

// The flag tables several commands share, declared once (each command spreads the ones it takes).

/** Commands that talk to a server (ATELIER_URL, or --url) and can answer in one JSON line. */
export const SERVER_FLAGS = { url: { type: 'string' }, json: { type: 'boolean' } } as const satisfies Options;

/** Commands that act on one user of this deployment's database, by e-mail. */
export const ACCOUNT_FLAGS = { email: { type: 'string' }, json: { type: 'boolean' } } as const satisfies Options;

/** Commands that give a model its input: `run` and `estimate`. */
export const MODEL_INPUT_FLAGS = { input: { type: 'string', multiple: true, short: 'i' }, 'sub-model': { type: 'string' } } as const satisfies Options;

/** Commands that start a run and may follow it to its end: `run` and `workflows run`. */
export const RUN_FLAGS = {
  wait: { type: 'boolean', short: 'w' },
  out: { type: 'string', short: 'o' },
  'cancel-after': { type: 'string' },
  'idempotency-key': { type: 'string' },
  ...SERVER_FLAGS,
} as const satisfies Options;

export function parseFlags<O extends Options>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (err) {
    const first = (err as Error).message.split('\n')[0]!;
    const ambiguous = /Option '(--[\w-]+)[^']*' argument is ambiguous/.exec(first);
    // parseArgs refuses values that start with '-'; say how to pass one (it will then be validated).
    if (ambiguous) throw new UsageError(`${ambiguous[1]} got a value starting with "-"; write ${ambiguous[1]}=VALUE`);
    throw new UsageError(first);
  }
}

export function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

export function optionalInt(values: Record<string, unknown>, name: string): number | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^-?\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number`);
  return Number(v);
}

export function bigIntArg(values: Record<string, unknown>, name: string): bigint {
  const v = required(values, name);
  if (!/^\d{1,18}$/.test(v)) throw new UsageError(`--${name} must be a positive whole number of microcredits`);
  return BigInt(v);
}

export function optionalDate(values: Record<string, unknown>, name: string): Date | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  const d = new Date(String(v));
  if (!/^\d{4}-\d{2}-\d{2}/.test(String(v)) || Number.isNaN(d.getTime())) throw new UsageError(`--${name} must be an ISO 8601 date or timestamp`);
  return d;
}

/** Prints either one JSON line (--json) or the human text. */
export function output(json: boolean, data: unknown, human: string): void {
  process.stdout.write(json ? JSON.stringify(data) + '\n' : human + '\n');
}
