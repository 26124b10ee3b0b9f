import { AppError, validationError } from '../errors.js';

/**
 * Scoped keys (issue 29): a role and an allow-list of models. Pure: the auth hook asks roleRefusal for
 * every /v1 call, and run creation (runs/service.ts, workflows/runService.ts) asks checkModelScope for each
 * model it would run.
 *
 * - full: everything the account may do.
 * - run-only: runs, files and reads, but no workflow edits, no webhook secret and no key management.
 * - read-only: reads (and the price estimates, which change nothing) only.
 */
export type KeyRole = 'full' | 'run-only' | 'read-only';
export const KEY_ROLES: readonly KeyRole[] = ['full', 'run-only', 'read-only'];

export interface KeyScope {
  role: KeyRole;
  /** null: any. A model is allowed when every list that is set names it (its nodeType, category or provider). */
  nodeTypes: string[] | null;
  categories: string[] | null;
  providers: string[] | null;
}

export const FULL_SCOPE: KeyScope = { role: 'full', nodeTypes: null, categories: null, providers: null };

/** Calls that change nothing, so a read-only key may make them although they are POSTs. */
const READ_POSTS = new Set(['/v1/nodes/estimate-credits', '/v1/workflows/estimate-credits', '/v1/runs/batch']);

/** Workflow edits and secrets a run-only key may not touch (routes as Fastify declares them). */
function runOnlyRefuses(method: string, route: string): string | undefined {
  if (route === '/v1/webhooks/secret' || route === '/v1/webhooks/secret/rotate') return 'the webhook signing secret';
  if (route.startsWith('/v1/keys') || route === '/v1/credits/budgets') return method === 'GET' ? undefined : 'key and budget management';
  if (method !== 'GET' && method !== 'HEAD' && route.startsWith('/v1/workflows') && route !== '/v1/workflows/estimate-credits') return 'workflow edits';
  return undefined;
}

/** The refusal of a call the key's role does not allow, or undefined. `route`: the matched route's pattern. */
export function roleRefusal(role: KeyRole, method: string, route: string | undefined): AppError | undefined {
  // MCP's one route carries reads and runs alike: its run tools are refused by the services (checkModelScope).
  if (role === 'full' || !route || route === '/mcp') return undefined;
  if (role === 'read-only') {
    if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS' || READ_POSTS.has(route)) return undefined;
    return new AppError('KEY_ROLE', `this key is read-only: ${method} ${route} is refused`, { extra: { role } });
  }
  const what = runOnlyRefuses(method, route);
  return what ? new AppError('KEY_ROLE', `this key is run-only: ${what} (${method} ${route}) is refused`, { extra: { role } }) : undefined;
}

/** Throws KEY_ROLE when the key's role may not change workflows (a run-only or read-only key; MCP's workflow tools). */
export function checkWorkflowEdits(scope: KeyScope | undefined): void {
  if (!scope || scope.role === 'full') return;
  throw new AppError('KEY_ROLE', `this key is ${scope.role}: workflow edits are refused`, { extra: { role: scope.role } });
}

/** Throws KEY_SCOPE_MODEL when the key's allow-list does not include the model. `where`: e.g. "node n1". */
export function checkModelScope(scope: KeyScope | undefined, model: { nodeType: string; category: string; provider: string }, where?: string): void {
  if (!scope) return;
  if (scope.role === 'read-only') throw new AppError('KEY_ROLE', 'this key is read-only: it may not start runs', { extra: { role: scope.role } });
  const refusedBy =
    scope.nodeTypes && !scope.nodeTypes.includes(model.nodeType) ? 'nodeTypes'
      : scope.categories && !scope.categories.includes(model.category) ? 'categories'
        : scope.providers && !scope.providers.includes(model.provider) ? 'providers'
          : undefined;
  if (!refusedBy) return;
  const allowed = scope[refusedBy]!;
  throw new AppError('KEY_SCOPE_MODEL', `${where ? `${where}: ` : ''}this key may not run ${model.nodeType}: its ${refusedBy} allow-list is ${allowed.join(', ')}`, {
    extra: { scope: refusedBy, allowed, nodeType: model.nodeType },
  });
}

function list(raw: unknown, path: string): string[] | null | undefined {
  if (raw === undefined) return undefined;
  if (raw === null) return null;
  if (!Array.isArray(raw) || raw.length > 200 || raw.some((x) => typeof x !== 'string' || x.length < 1 || x.length > 100)) {
    throw validationError(path, 'must be null or an array of at most 200 names');
  }
  return [...new Set(raw as string[])];
}

/** A scope change of a request: each field omitted (kept), null (any) or set. */
export function parseScope(raw: { role?: unknown; nodeTypes?: unknown; categories?: unknown; providers?: unknown }, path = 'body'): Partial<KeyScope> {
  const out: Partial<KeyScope> = {};
  if (raw.role !== undefined) {
    if (!(KEY_ROLES as readonly unknown[]).includes(raw.role)) throw validationError(`${path}.role`, `must be one of ${KEY_ROLES.join(', ')}`);
    out.role = raw.role as KeyRole;
  }
  const n = list(raw.nodeTypes, `${path}.nodeTypes`);
  if (n !== undefined) out.nodeTypes = n;
  const c = list(raw.categories, `${path}.categories`);
  if (c !== undefined) out.categories = c;
  const p = list(raw.providers, `${path}.providers`);
  if (p !== undefined) out.providers = p;
  return out;
}
