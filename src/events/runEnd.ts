import type { EventType } from './types.js';

/**
 * The one builder of a run's end event (run.completed, run.failed, run.canceled), for model runs
 * (runs/settle.ts) and workflow runs (workflows/executor.ts, workflows/runService.ts) alike: the same
 * fields in the same order whoever ends the run. A model run counts as one node. Pure.
 */
export type RunEnd =
  | { status: 'COMPLETED'; completedNodes: number; outputs: unknown; actualCredits: number }
  | { status: 'FAILED'; completedNodes: number; failedNodeIds: string[] }
  | { status: 'CANCELED'; completedNodes: number; failedNodes: number };

export function runEndEvent(end: RunEnd): { type: EventType; data: Record<string, unknown> } {
  switch (end.status) {
    case 'COMPLETED':
      return { type: 'run.completed', data: { status: 'COMPLETED', completedNodes: end.completedNodes, failedNodes: 0, outputs: end.outputs, actualCredits: end.actualCredits } };
    case 'FAILED':
      return { type: 'run.failed', data: { status: 'FAILED', completedNodes: end.completedNodes, failedNodes: end.failedNodeIds.length, failedNodeIds: end.failedNodeIds } };
    case 'CANCELED':
      return { type: 'run.canceled', data: { status: 'CANCELED', completedNodes: end.completedNodes, failedNodes: end.failedNodes } };
  }
}
