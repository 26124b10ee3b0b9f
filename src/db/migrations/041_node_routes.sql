-- Issue 29, item 3, for workflow nodes: a routed node records which route served it and why the others were
-- skipped (as runs.route does for a standalone run), and is charged that route's price, never more than its
-- hold. `atelier doctor` re-prices a charged node from its stored input at the route named here
-- (ops/nodeChargeCheck.ts).
ALTER TABLE node_runs ADD COLUMN route jsonb;
