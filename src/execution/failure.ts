import { EngineError, EngineInputError } from '../engines/types.js';

/**
 * Run failure codes (the codes the contract lists in src/contract/runs.ts): kept in the run record's `errorCode` beside the
 * message. An engine's own errors carry none.
 */
export type RunErrorCode = 'OUTPUT_TOO_LARGE' | 'INPUT_TOO_LARGE' | 'ENGINE_CRASHED' | 'ENGINE_OUT_OF_MEMORY' | 'ENGINE_TIMEOUT';

/** A failure the execution layer names: the run fails with this message and code, nothing charged. */
export class RunFailure extends Error {
  override name = 'RunFailure';
  constructor(readonly code: RunErrorCode, message: string, readonly retryable = false) {
    super(message);
  }
}

/** The engine pools closed under a task (the worker is stopping): the task goes back to the queue. */
export class PoolsClosed extends EngineError {
  constructor() {
    super('the engine pools are shutting down', true);
  }
}

/** A failure that is part of this worker's stop rather than the run's: its engine process ended or its pool closed. */
export function endedByStop(err: unknown): boolean {
  return err instanceof PoolsClosed || (err instanceof RunFailure && err.code === 'ENGINE_CRASHED');
}

/** The error code a failed attempt is stored with, if it has one. */
export function errorCodeOf(err: unknown): RunErrorCode | null {
  if (err instanceof EngineInputError && err.code) return err.code;
  return err instanceof RunFailure ? err.code : null;
}
