import type { CliContext } from '../context.js';
import { ACCOUNT_FLAGS, output, parseFlags, required, UsageError } from '../args.js';

export async function usersCommand(ctx: CliContext, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  const { values } = parseFlags(rest, { ...ACCOUNT_FLAGS, password: { type: 'string' }, org: { type: 'string' }, personal: { type: 'boolean' } });
  const s = await ctx.services();
  const json = values.json === true;
  const show = (u: Awaited<ReturnType<typeof s.accounts.requireByEmail>>, verb: string) =>
    output(json, { id: u.id, email: u.email, accountId: u.actingAccountId, organization: u.activeOrgName },
      `${verb} ${u.email}${u.activeOrgName ? ` (acting for organization ${u.activeOrgName})` : ''}`);
  switch (sub) {
    case 'create': {
      const u = await s.accounts.createUser({ email: required(values, 'email'), password: required(values, 'password'), orgName: values.org });
      return show(u, 'created user');
    }
    case 'join-org': {
      const before = await s.accounts.requireByEmail(required(values, 'email'));
      const u = await s.accounts.joinOrganization(before.email, required(values, 'org'));
      const { available } = await s.credits.balance(u.actingAccountId);
      // Joining also switches what the user's existing API keys act for: say so, with the balance they now draw on.
      if (!json && before.actingAccountId !== u.actingAccountId) {
        const keys = (await s.keys.list(u)).filter((k) => k.state !== 'revoked').length;
        process.stderr.write(
          `note: ${u.email}'s API keys (${keys}) now act for organization ${u.activeOrgName}: runs are charged to its balance, ` +
          `${available} microcredits available${available === 0n ? ' (so runs will be refused with 403 until it is funded)' : ''}. ` +
          `To go back: atelier users use-org --email ${u.email} --personal\n`,
        );
      }
      return output(json, { id: u.id, email: u.email, accountId: u.actingAccountId, organization: u.activeOrgName, availableMicrocredits: Number(available) },
        `joined; now acting as ${u.email} (acting for organization ${u.activeOrgName})`);
    }
    case 'use-org': {
      if (values.personal === (values.org !== undefined)) throw new UsageError('give exactly one of --org NAME or --personal');
      return show(await s.accounts.setActiveOrganization(required(values, 'email'), values.org ?? null), 'now acting as');
    }
    default:
      throw new UsageError('usage: atelier users create|join-org|use-org --email E [--password P] [--org NAME | --personal]');
  }
}
