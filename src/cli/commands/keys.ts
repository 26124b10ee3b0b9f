import type { CliContext } from '../context.js';
import type { ApiKeyInfo } from '../../keys/service.js';
import { setMaxPriority } from '../../keys/priority.js';
import { ACCOUNT_FLAGS, optionalDate, optionalInt, output, parseFlags, required, UsageError } from '../args.js';

function line(k: ApiKeyInfo): string {
  return [k.label.padEnd(20), `${k.prefix}…`, k.state.padEnd(8), `${k.rateLimitPerMinute}/min`, `${k.rateLimitPerDay}/day`,
    k.expiresAt ? `expires ${k.expiresAt}` : 'no expiry'].join('  ');
}

export async function keysCommand(ctx: CliContext, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  const { values } = parseFlags(rest, {
    ...ACCOUNT_FLAGS, label: { type: 'string' }, 'expires-at': { type: 'string' }, 'per-minute': { type: 'string' }, 'per-day': { type: 'string' }, 'max-priority': { type: 'string' },
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
      };
      const s = await ctx.services();
      const k = await s.keys.create(await s.accounts.requireByEmail(email), input);
      return output(json, k, `${k.key}\n\nThis is the only time the full key is shown. ${line(k)}`);
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
      throw new UsageError('usage: atelier keys create|list|revoke|set-priority --email E [--label L] [--expires-at ISO8601] [--per-minute N] [--per-day N] [--max-priority N] [--json]');
  }
}
