export interface Balance {
  /**
   * Microcredits. Always an exact integer: the server refuses any grant that would put a balance above
   * Number.MAX_SAFE_INTEGER (9007199254740991), so a plain `number` carries every figure exactly.
   */
  availableBalance: number;
  /** availableBalance / 1e6 with two decimals and `M`, e.g. `26.17M`. */
  formatted: string;
  hasActiveSubscription: boolean;
  isOrganization: boolean;
  reservedMicrocredits: number;
}

export interface LedgerEntry {
  id: string;
  kind: string;
  /** Change of the balance (grants +, captures −). */
  microcredits: number;
  /** Change of the amount on hold (reserve +, capture/release −). */
  reservedMicrocredits: number;
  runId: string | null;
  note: string | null;
  createdAt: string;
}
