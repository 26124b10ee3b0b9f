-- Issue 29, item 3: routing with fallback. A routed run records which route served it and why the others
-- were skipped (runs.route, shown as the record's `route`); each route's circuit breaker is shared by every
-- worker through route_circuits (catalog/routeCircuits.ts), one row per route that failed lately.
ALTER TABLE runs ADD COLUMN route jsonb;
CREATE TABLE route_circuits (
  route text PRIMARY KEY,
  failures integer NOT NULL DEFAULT 0,
  open_until timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
