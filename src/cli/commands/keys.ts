import type { CliContext } from '../context.js';
import type { ApiKeyInfo } from '../../keys/service.js';
import { setMaxPriority } from '../../keys/priority.js';
import { ACCOUNT_FLAGS, optionalDate, optionalInt, output, parseFlags, required, UsageError } from '../args.js';

/** The key's scope, spend limits and priority ceiling in a few words: "run-only  nodeTypes espeak_tts  day 1200/5000  priority up to 0". */
function scopeWords(k: ApiKeyInfo): string {
  const lists = ([['nodeTypes', k.nodeTypes], ['categories', k.categories], ['providers', k.providers]] as const)
    .filter(([, v]) => v !== null).map(([n, v]) => `${n} ${v!.join(',')}`);
  const budgets = k.budgets.map((b) => `${b.period} ${b.spentMicrocredits}/${b.limitMicrocredits}`);
  return [k.role, ...lists, ...budgets, `priority up to ${k.maxPriority}`].join('  ');
}

function line(k: ApiKeyInfo): string {
  return [k.label.padEnd(20), `${k.prefix}…`, k.state.padEnd(8), `${k.rateLimitPerMinute}/min`, `${k.rateLimitPerDay}/day`,
    k.expiresAt ? `expires ${k.expiresAt}` : 'no expiry', scopeWords(k)].join('  ');
}

/** "a,b" → ["a", "b"]; "any" → null (every model); absent → undefined (unchanged). */
function names(values: Record<string, unknown>, flag: string): string[] | null | undefined {
  const v = values[flag];
  if (v === undefined) return undefined;
  if (v === 'any') return null;
  return String(v).split(',').map((s) => s.trim()).filter(Boolean);
}

/** --day-limit/--month-limit/--total-limit N (microcredits) or "none" to remove. */
function limits(values: Record<string, unknown>): Record<string, number | null> | undefined {
  const out: Record<string, number | null> = {};
  for (const period of ['day', 'month', 'total']) {
    const flag = `${period}-limit`;
    if (values[flag] === undefined) continue;
    out[period] = values[flag] === 'none' ? null : optionalInt(values, flag)!;
  }
  return Object.keys(out).length ? out : undefined;
}

function scopeInput(values: Record<string, unknown>) {
  return {
    role: values.role, nodeTypes: names(values, 'node-types'), categories: names(values, 'categories'), providers: names(values, 'providers'), budgets: limits(values),
  };
}

const USAGE = 'usage: atelier keys create|update|list|revoke|set-priority --email E [--label L] [--expires-at ISO8601] [--per-minute N] [--per-day N]'
  + ' [--role full|run-only|read-only] [--node-types a,b|any] [--categories a,b|any] [--providers a,b|any] [--day-limit N|none] [--month-limit N|none] [--total-limit N|none] [--max-priority N] [--json]';

export async function keysCommand(ctx: CliContext, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  const { values } = parseFlags(rest, {
    ...ACCOUNT_FLAGS, label: { type: 'string' }, 'expires-at': { type: 'string' }, 'per-minute': { type: 'string' }, 'per-day': { type: 'string' }, 'max-priority': { type: 'string' },
    role: { type: 'string' }, 'node-types': { type: 'string' }, categories: { type: 'string' }, providers: { type: 'string' },
    'day-limit': { type: 'string' }, 'month-limit': { type: 'string' }, 'total-limit': { type: 'string' },
  });
  const json = values.json === true;
  switch (sub) {
    case 'create': {
      const email = required(values, 'email');
      const label = required(values, 'label');
      const input = {
        label,
        expiresAt: optionalDate(values, 'expires-at'),
        perMinute: optionalInt(values, 'per-minute'),
        perDay: optionalInt(values, 'per-day'),
        ...scopeInput(values),
      };
      const s = await ctx.services();
      const k = await s.keys.create(await s.accounts.requireByEmail(email), input);
      return output(json, k, `${k.key}\n\nThis is the only time the full key is shown. ${line(k)}`);
    }
    case 'update': {
      const s = await ctx.services();
      const user = await s.accounts.requireByEmail(required(values, 'email'));
      const label = required(values, 'label');
      const key = (await s.keys.list(user)).find((k) => k.label === label && k.state !== 'revoked');
      if (!key) throw new UsageError(`no unrevoked key labelled "${label}"`);
      const k = await s.keys.update(user, key.id, { perMinute: optionalInt(values, 'per-minute'), perDay: optionalInt(values, 'per-day'), ...scopeInput(values) });
      return output(json, k, `updated ${line(k)}`);
    }
    case 'list': {
      const s = await ctx.services();
      const user = await s.accounts.requireByEmail(required(values, 'email'));
      const keys = await s.keys.list(user);
      // Keys act for the user's active account (spec 5.6), which `users join-org` and `use-org` change.
      const acting = user.activeOrgName ? `organization ${user.activeOrgName} (${user.actingAccountId})` : `personal account (${user.actingAccountId})`;
      return output(json, keys, `keys of ${user.email}, acting for ${acting}:\n${keys.length ? keys.map(line).join('\n') : 'no keys'}`);
    }
    case 'revoke': {
      const s = await ctx.services();
      const k = await s.keys.revoke(await s.accounts.requireByEmail(required(values, 'email')), required(values, 'label'));
      return output(json, k, `revoked ${k.label} (${k.prefix}…)`);
    }
    case 'set-priority': {
      // The operator's ceiling on the run priority a key may ask for (issue 29); 0, the default, is normal.
      const s = await ctx.services();
      const user = await s.accounts.requireByEmail(required(values, 'email'));
      const max = optionalInt(values, 'max-priority');
      if (max === undefined) throw new UsageError('--max-priority N (0 to 10) is required');
      const k = await setMaxPriority(s.db, user.id, required(values, 'label'), max);
      return output(json, k, `${k.label} may now ask for run priority up to ${k.maxPriority}`);
    }
    default:
      throw new UsageError(USAGE);
  }
}
