import type { FastifyReply } from 'fastify';

const ENDED = ['COMPLETED', 'FAILED', 'CANCELED'];

/** A created run as both creation routes answer it (model runs and workflow runs). */
export interface CreatedRunAnswer {
  run: { id: string; estimated_microcredits: bigint | number };
  replayed: boolean;
  /** The run's URL (Location). */
  location: string;
  /** Prefer: wait=N, if sent (runHeaders.ts parsePreferWait). */
  wait: number | undefined;
  waitForEnd(runId: string, seconds: number): Promise<void>;
  /** The run's record once waited for. */
  view(): Promise<{ id: string; status: string }>;
}

/**
 * The one answer to a run's creation: Idempotent-Replayed and Location; with Prefer: wait, the run record
 * once it ended (200) or the wait ran out (202); otherwise the first answer, also to a replay (same key
 * and body → the first answer again): every run is created QUEUED, whatever it has become since.
 */
export async function answerCreatedRun(reply: FastifyReply, a: CreatedRunAnswer): Promise<FastifyReply> {
  if (a.replayed) reply.header('Idempotent-Replayed', 'true');
  reply.header('Location', a.location);
  if (a.wait !== undefined) {
    await a.waitForEnd(a.run.id, a.wait);
    const v = await a.view();
    reply.header('Preference-Applied', `wait=${a.wait}`);
    return reply.code(ENDED.includes(v.status) ? 200 : 202).send({ runId: v.id, ...v });
  }
  return reply.code(202).send({ runId: a.run.id, status: 'QUEUED', estimatedCredits: Number(a.run.estimated_microcredits) });
}
