import type { CliContext } from '../context.js';

/** Opening the database applies pending migrations; this command does only that. */
export async function migrateCommand(ctx: CliContext): Promise<void> {
  await ctx.services();
  process.stdout.write('database is up to date\n');
}
