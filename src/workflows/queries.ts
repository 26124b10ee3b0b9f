import { deliveryInsertSql, eventInsertSql } from '../events/queries.js';
import { entrySql, settleHoldSql } from '../ledger/queries.js';
import { budgetSettleSql } from '../ledger/queries/budgets.js';
import { claimNodeSql, settleNodeCtes } from '../runs/queries/nodes.js';
import { stampRunSql } from '../runs/queries/workflowRuns.js';
import { cursorTimeSql } from '../pagination.js';
import type { Graph } from './types.js';

/**
 * The workflow executor's one-statement steps (workflows/executor.ts), assembled from the fragments each
 * table's owner exports (runs/ for node_runs and runs, ledger/, events/), and the node cache's SQL, which
 * workflows/ owns (nodeCache.ts uses it). The node and run statements sent on their own are runs/'s
 * (runs/queries/nodes.ts, runs/queries/workflowRuns.ts).
 */

/**
 * The lease of a ready node (runs/queries/nodes.ts claimNodeSql 'leased') unless the node cache holds an
 * output for its key, in one statement with the cache lookup: for the node a worker runs next when its hold does not move (its price is what it already
 * holds), the common case of a chain. Answers the cached output, if any (the caller checks it is still
 * usable: nodeCache.ts usableOutput), and whether the node was claimed. $8 account.
 */
export const LEASE_READY_NODE_UNLESS_CACHED = `
WITH hit AS (
  ${cacheLookupSql('$8', '$4')}
), claimed AS (
  ${claimNodeSql('leased', { run: '$1::text', node: '$2::text', input: '$3::jsonb', key: '$4::text', price: '$5::bigint', worker: '$6::text', seconds: '$7::int' }, undefined, 'NOT EXISTS (SELECT 1 FROM hit)')}
  RETURNING c.node_id
)
SELECT (SELECT output FROM hit) AS cached, EXISTS (SELECT 1 FROM claimed) AS claimed`;

/**
 * SETTLE_NODE's ledger rows, in this order: the charge (`capture`; a failed node's whole hold `release`d),
 * then, when a routed node's served route cost less than its hold, the `release` of the rest. Rows that
 * move nothing are left out.
 */
const NODE_SETTLE_ENTRIES = `SELECT x.kind, x.posted, x.reserved, x.note FROM settled s CROSS JOIN LATERAL (VALUES
    (1, CASE WHEN s.status = 'COMPLETED' THEN 'capture' ELSE 'release' END, -s.charged, CASE WHEN s.status = 'COMPLETED' THEN -s.charged ELSE -s.held END, $9::text),
    (2, 'release', 0::bigint, CASE WHEN s.status = 'COMPLETED' THEN s.charged - s.held ELSE 0 END,
        'node ' || $2::text || ': route ' || COALESCE($23::jsonb->>'served', '') || ' costs less than the hold')
  ) x(i, kind, posted, reserved, note) ORDER BY x.i`;

/**
 * Ends a node its worker ran, exactly once (only from RUNNING, only by its lease holder), with everything
 * that goes with it, as one statement (the run is already locked: runs/queries/workflowRuns.ts LOCK_RUN):
 * the node's hold captured as its charge (COMPLETED) or released (FAILED), each with its ledger row — a
 * routed node is charged $22, the price of the route that served it (never more than its hold), and the
 * rest of its hold is released with a ledger row of its own and given back to the spend limits, as a
 * standalone run's settle does (runs/settle.ts); $23 is its route report; a completed node's output into the
 * node cache; its event (and webhook delivery, when $13 names one) in the outbox; the run stamped as in hand
 * ($16: when no advance follows in this transaction; see the sweeper's STALLED_WORKFLOWS). No row back means
 * it was not this worker's to end any more (canceled, or taken over), and then nothing was written.
 *
 * It also does the first step of the advance that follows, for the common case of a chain: the node
 * $17, which the worker found will be ready once this one completes (its only predecessor that runs), is
 * leased to the worker as LEASE_READY_NODE_UNLESS_CACHED would, if it is still PENDING, holds its price
 * ($20) already and has no cache entry ($19 its key, $18 its input, $21 lease seconds). And it answers every
 * node's state as it was before this statement (the two it changed are the caller's to patch), so the rest
 * of the advance needs no read of its own. One statement rather than ten: it runs once per node, on the path
 * between one node and the next.
 * $1 run, $2 node, $3 status, $4 output, $5 error, $6 worker, $7 error code, $8 account, $9 ledger note,
 * $10 event id, $11 event type, $12 event payload, $13 delivery URL, $14 delivery headers, $15 workflow,
 * $22 the served route's price (NULL: the hold), $23 the route report (NULL: not routed).
 */
export const SETTLE_NODE = `
WITH ${settleNodeCtes({ run: '$1', node: '$2', status: '$3::text', output: '$4::jsonb', error: '$5', worker: '$6::text', errorCode: '$7', charge: '$22::bigint', route: '$23::jsonb' })}, balance AS (
  ${settleHoldSql('$8::text', 's.held', 's.charged', 'settled s', 's.held > 0')}
), entry AS (
  ${entrySql({ account: '$8::text', kind: 'p.kind', posted: 'p.posted', reserved: 'p.reserved', run: '$1', note: 'p.note' }, `(${NODE_SETTLE_ENTRIES}) p`, 'p.reserved <> 0')}
)${budgetSettleSql('$1::text', 's.held', 's.charged', 'balance, settled s')}, cached AS (
  ${cacheStoreSql({ account: '$8::text', key: 's.cache_key', nodeType: 's.node_type', output: '$4::jsonb', workflow: '$15', run: '$1' }, 'settled s', `$3::text = 'COMPLETED'`)}
), event AS (
  ${eventInsertSql({ eventId: '$10::text', account: '$8::text', run: '$1', type: '$11', payload: '$12' }, 'settled')}
), delivery AS (
  ${deliveryInsertSql({ eventId: '$10::text', account: '$8::text', run: '$1', url: '$13::text', headers: '$14' }, 'settled, event', '$13::text IS NOT NULL')}
), stamp AS (
  ${stampRunSql('$1', 'settled', '$16::boolean')}
), leased AS (
  ${claimNodeSql('leased', { run: '$1', node: '$17::text', input: '$18::jsonb', key: '$19::text', price: '$20::bigint', worker: '$6::text', seconds: '$21::int' }, 'settled s',
    `s.status = 'COMPLETED' AND c.reserved_microcredits = $20::bigint AND NOT EXISTS (${cacheLookupSql('$8::text', '$19::text')})`)}
  RETURNING c.node_id
)
SELECT s.node_id, s.node_type, s.status, s.started_at, s.finished_at, s.charged, (SELECT id FROM event) AS event_row, (SELECT node_id FROM leased) AS leased,
       (SELECT json_agg(json_build_array(n.node_id, n.status, n.reserved_microcredits::text)) FROM node_runs n WHERE n.run_id = $1) AS states
  FROM settled s`;

/** What SETTLE_NODE answers: the settled node, its event row, the node it leased, and every node's state. */
export interface SettledNodeRow {
  node_id: string;
  node_type: string;
  status: string;
  started_at: Date | null;
  finished_at: Date | null;
  /** What the node was charged (0 unless it completed). */
  charged: bigint;
  event_row: string;
  /** The node SETTLE_NODE leased to this worker, if any. */
  leased: string | null;
  /** [node id, status, reserved microcredits as text] */
  states: Array<[string, string, string]>;
}

/** What LEASE_READY_NODE_UNLESS_CACHED answers: the cached output found, or whether the node was leased. */
export interface LeaseOrCachedRow {
  cached: any;
  claimed: boolean;
}

export const FILE_SHAS = `SELECT id, sha256 FROM files WHERE id = ANY($1)`;
export const LIVE_FILES = `SELECT count(*)::int AS n FROM files WHERE id = ANY($1) AND (expires_at IS NULL OR expires_at > now())`;
/**
 * The node cache's one lookup and one store (nodeCache.ts is the module that uses them; SETTLE_NODE and
 * LEASE_READY_NODE_UNLESS_CACHED embed them). A later store of the same key replaces the entry.
 */
export function cacheLookupSql(account: string, key: string): string {
  return `SELECT output FROM node_cache WHERE account_id = ${account} AND cache_key = ${key}`;
}
export function cacheStoreSql(e: { account: string; key: string; nodeType: string; output: string; workflow: string; run: string }, from?: string, where = 'true'): string {
  return `INSERT INTO node_cache (account_id, cache_key, node_type, output, workflow_id, source_run_id)
  SELECT ${e.account}, ${e.key}, ${e.nodeType}, ${e.output}, ${e.workflow}, ${e.run}${from ? ` FROM ${from}` : ''} WHERE ${where}
  ON CONFLICT (account_id, cache_key) DO UPDATE SET output = EXCLUDED.output, workflow_id = EXCLUDED.workflow_id, source_run_id = EXCLUDED.source_run_id, created_at = now()`;
}
export const CACHE_LOOKUP = cacheLookupSql('$1::text', '$2::text');
/** CACHE_LOOKUP for several keys ($2) at once, answering each entry found with its key. */
export const CACHE_LOOKUP_MANY = `SELECT cache_key, output FROM node_cache WHERE account_id = $1::text AND cache_key = ANY($2::text[])`;
export const CACHE_STORE = cacheStoreSql({ account: '$1::text', key: '$2::text', nodeType: '$3::text', output: '$4::jsonb', workflow: '$5::text', run: '$6::text' });


// --- workflows ---------------------------------------------------------------------------------------

/** A row of workflows as `SELECT *` answers it. */
export interface WorkflowRow {
  id: string;
  /** null for a system workflow */
  account_id: string | null;
  slug: string | null;
  name: string;
  description: string;
  category: string | null;
  graph: Graph;
  created_at: Date;
  updated_at: Date;
}

/** LIST_WORKFLOWS: a workflow's summary and its cursor text. */
export interface WorkflowSummaryRow {
  id: string;
  name: string;
  updated_at: Date;
  cursor_at: string;
  node_count: number;
}

export const INSERT_WORKFLOW = `INSERT INTO workflows (id, account_id, name, description, graph) VALUES ($1, $2, $3, $4, $5) RETURNING *`;

/** A workflow the account may read (its own or a system one) by id or by slug, locked or not. */
export function workflowByKeySql(byId: boolean, lock: boolean): string {
  return `SELECT * FROM workflows WHERE ${byId ? 'id' : 'slug'} = $1 AND (account_id = $2 OR account_id IS NULL)${lock ? ' FOR UPDATE' : ''}`;
}

/** A page of an account's workflows, last changed first: $2 a name search escaped for ILIKE, ($3, $4) the cursor, $5 limit. */
export const LIST_WORKFLOWS = `SELECT id, name, updated_at, ${cursorTimeSql('updated_at')} AS cursor_at, jsonb_array_length(graph->'nodes') AS node_count FROM workflows
        WHERE account_id = $1 AND ($2::text IS NULL OR name ILIKE '%' || $2 || '%')
          AND ($3::timestamptz IS NULL OR (updated_at, id) < ($3, $4))
        ORDER BY updated_at DESC, id DESC LIMIT $5`;

export const SAVE_WORKFLOW = `UPDATE workflows SET graph = $2, name = $3, description = $4, updated_at = now() WHERE id = $1 RETURNING *`;
export const DELETE_WORKFLOW = `DELETE FROM workflows WHERE id = $1 AND account_id = $2`;
export const SYSTEM_WORKFLOWS = `SELECT * FROM workflows WHERE account_id IS NULL ORDER BY slug`;

/** A system workflow installed or brought up to this build's definition (left alone when unchanged). */
export const UPSERT_SYSTEM_WORKFLOW = `INSERT INTO workflows (id, account_id, slug, name, description, category, graph) VALUES ($1, NULL, $2, $3, $4, $5, $6)
       ON CONFLICT (slug) DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description, category = EXCLUDED.category, graph = EXCLUDED.graph, updated_at = now()
       WHERE workflows.graph IS DISTINCT FROM EXCLUDED.graph OR workflows.name IS DISTINCT FROM EXCLUDED.name OR workflows.description IS DISTINCT FROM EXCLUDED.description`;

/** Clears a workflow's node cache: the entries its runs stored, and those its runs were served from. */
export const CLEAR_WORKFLOW_CACHE = `DELETE FROM node_cache c WHERE c.account_id = $1 AND (c.workflow_id = $2 OR c.cache_key IN (
         SELECT nr.cache_key FROM node_runs nr JOIN runs r ON r.id = nr.run_id WHERE r.account_id = $1 AND r.workflow_id = $2 AND nr.cache_key IS NOT NULL))`;
