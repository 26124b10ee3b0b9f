import type { ResponseOf } from './types-api.js';

// Generated from the OpenAPI document (see types-api.ts).
export type Balance = ResponseOf<'credits.balance', 200>;
export type LedgerEntry = ResponseOf<'credits.ledger', 200>['items'][number];
