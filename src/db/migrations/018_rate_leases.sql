-- Issue 17: busy keys get short leases of rate-limit quota (keys/quotaLease.ts). lease_until is when the
-- latest lease of a key ends; a process refused before then asks again after it, since leased units that
-- go unused come back. The table stays UNLOGGED (see 017).
ALTER TABLE key_windows ADD COLUMN lease_until timestamptz NOT NULL DEFAULT 'epoch';
