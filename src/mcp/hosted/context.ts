import type { Services } from '../../services.js';
import type { Principal } from '../../keys/service.js';
import type { CallMeter } from '../meter.js';

/** What every hosted-compatible tool of one /mcp request works with. */
export interface ToolContext {
  services: Services;
  principal: Principal;
  accountId: string;
  /** Counts further runs of a batch_execute against the key (src/mcp/meter.ts). */
  meter: CallMeter;
  /** Logs an unexpected failure (never shown to the client). */
  log: (err: unknown) => void;
}

/** Arguments of a hosted tool come from a model: trim strings and treat empty ones as absent. */
export function given(s: string | undefined | null): string | undefined {
  const t = s?.trim();
  return t ? t : undefined;
}
