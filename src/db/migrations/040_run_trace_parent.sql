-- OpenTelemetry (src/tracing/, issue 30): the W3C traceparent of the span that created the run, written by
-- the run's insert while traces are on, so the worker that runs it (another process, perhaps another host)
-- continues the same trace. NULL while traces are off; nothing reads it then.
ALTER TABLE runs ADD COLUMN trace_parent text;
