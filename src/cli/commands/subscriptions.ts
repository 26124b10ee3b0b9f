import type { CliContext } from '../context.js';
import { ACCOUNT_FLAGS, bigIntArg, output, parseFlags, required, UsageError } from '../args.js';

export async function subscriptionsCommand(ctx: CliContext, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  const { values } = parseFlags(rest, { ...ACCOUNT_FLAGS, plan: { type: 'string' }, 'monthly-microcredits': { type: 'string' } });
  const json = values.json === true;
  const describe = (s: { plan: string; status: string; monthlyMicrocredits: number; currentPeriodEnd: string }, who: string) =>
    `${who}: ${s.plan} (${s.status}), ${s.monthlyMicrocredits} microcredits a month, period ends ${s.currentPeriodEnd}`;
  switch (sub) {
    case 'set': {
      const amount = bigIntArg(values, 'monthly-microcredits');
      const plan = required(values, 'plan');
      const s = await ctx.services();
      const user = await s.accounts.requireByEmail(required(values, 'email'));
      const result = await s.subscriptions.set(user.actingAccountId, plan, amount);
      return output(json, result, describe(result, user.activeOrgName ?? user.email));
    }
    case 'cancel': {
      const s = await ctx.services();
      const user = await s.accounts.requireByEmail(required(values, 'email'));
      const result = await s.subscriptions.cancel(user.actingAccountId);
      return output(json, result, describe(result, user.activeOrgName ?? user.email));
    }
    default:
      throw new UsageError('usage: atelier subscriptions set --email E --plan NAME --monthly-microcredits N | subscriptions cancel --email E');
  }
}
