/** Event types (spec 6.2) and which run kinds emit them. */
import { EVENT_TYPES } from '../contract/webhooks.js';

export { EVENT_TYPES };
export type EventType = (typeof EVENT_TYPES)[number];

/** budget.threshold: a spend limit of the account or key crossed 50, 80 or 100 % with this run's hold (ledger/queries/budgets.ts). */
export const NODE_RUN_EVENTS: readonly EventType[] = ['run.started', 'run.completed', 'run.failed', 'run.canceled', 'budget.threshold'];
export const WORKFLOW_RUN_EVENTS: readonly EventType[] = EVENT_TYPES;

/** The delivered body (spec 6.3). */
export interface EventPayload {
  success: boolean;
  type: EventType;
  runId: string;
  workflowId: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown> | null;
  error: string | null;
  createdAt: string;
}

export interface WebhookConfig {
  url: string;
  events?: EventType[];
  metadata?: Record<string, unknown>;
  headers?: Record<string, string>;
}
