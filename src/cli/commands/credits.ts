import type { CliContext } from '../context.js';
import { formatMillions } from '../../billing/format.js';
import { ACCOUNT_FLAGS, bigIntArg, output, parseFlags, required, UsageError } from '../args.js';

export async function creditsCommand(ctx: CliContext, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  const { values } = parseFlags(rest, { ...ACCOUNT_FLAGS, microcredits: { type: 'string' }, note: { type: 'string' } });
  const json = values.json === true;
  switch (sub) {
    case 'grant': {
      const amount = bigIntArg(values, 'microcredits');
      const s = await ctx.services();
      const user = await s.accounts.requireByEmail(required(values, 'email'));
      const b = await s.credits.grant(user.actingAccountId, amount, values.note);
      return output(json, { accountId: user.actingAccountId, granted: Number(amount), availableBalance: Number(b.available) },
        `granted ${amount} microcredits to ${user.activeOrgName ?? user.email}; available ${formatMillions(b.available)}`);
    }
    case 'balance': {
      const s = await ctx.services();
      const user = await s.accounts.requireByEmail(required(values, 'email'));
      const b = await s.credits.balance(user.actingAccountId);
      return output(json, { accountId: user.actingAccountId, availableBalance: Number(b.available), reservedMicrocredits: Number(b.reserved) },
        `${formatMillions(b.available)} available (${b.available} microcredits, ${b.reserved} reserved)`);
    }
    default:
      throw new UsageError('usage: atelier credits grant --email E --microcredits N [--note TEXT] | credits balance --email E');
  }
}
