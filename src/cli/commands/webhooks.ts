import type { CliContext } from '../context.js';
import { ACCOUNT_FLAGS, output, parseFlags, required, UsageError } from '../args.js';

export async function webhooksCommand(ctx: CliContext, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub !== 'secret') throw new UsageError('usage: atelier webhooks secret --email E [--rotate] [--json]');
  const { values } = parseFlags(rest, { ...ACCOUNT_FLAGS, rotate: { type: 'boolean' } });
  const s = await ctx.services();
  const user = await s.accounts.requireByEmail(required(values, 'email'));
  const secret = values.rotate ? await s.webhookSecrets.rotate(user.actingAccountId) : await s.webhookSecrets.current(user.actingAccountId);
  output(values.json === true, { secret, rotated: values.rotate === true },
    values.rotate ? `${secret}\n(the previous secret also signs deliveries for the next 24 hours)` : secret);
}
