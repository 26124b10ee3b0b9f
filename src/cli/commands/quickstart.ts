import crypto from 'node:crypto';
import type { CliContext } from '../context.js';
import { formatMillions } from '../../billing/format.js';
import { ACCOUNT_FLAGS, output, parseFlags, required } from '../args.js';

/** First steps in one command: the user (if new), a starter balance (if new), and a fresh key printed once. */
export async function quickstartCommand(ctx: CliContext, argv: string[]): Promise<void> {
  const { values } = parseFlags(argv, { ...ACCOUNT_FLAGS, password: { type: 'string' }, label: { type: 'string' } });
  const email = required(values, 'email');
  const s = await ctx.services();
  let user = await s.accounts.findByEmail(email);
  let password: string | undefined;
  let granted = 0n;
  if (!user) {
    password = values.password ?? crypto.randomBytes(12).toString('base64url');
    user = await s.accounts.createUser({ email, password });
    if (s.config.starterMicrocredits > 0n) {
      await s.credits.grant(user.actingAccountId, s.config.starterMicrocredits, 'quickstart starter balance');
      granted = s.config.starterMicrocredits;
    }
  }
  const label = values.label ?? `quickstart-${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15)}-${crypto.randomBytes(2).toString('hex')}`;
  const key = await s.keys.create(user, { label });
  const balance = await s.credits.balance(user.actingAccountId);
  output(values.json === true,
    { email: user.email, password: values.password ? undefined : password, key: key.key, label, grantedMicrocredits: Number(granted), availableBalance: Number(balance.available) },
    [
      `user: ${user.email}${password && !values.password ? `  (password: ${password} — for the web app)` : ''}`,
      `balance: ${formatMillions(balance.available)}${granted ? ` (starter grant of ${granted} microcredits)` : ''}`,
      `API key (shown only now): ${key.key}`,
      '',
      `try: curl -H "Authorization: Bearer ${key.key}" ${s.publicUrl()}/v1/credits/balance`,
    ].join('\n'));
}
