export interface Balance {
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
