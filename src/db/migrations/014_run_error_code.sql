-- Run failures the execution layer names (OUTPUT_TOO_LARGE, ENGINE_CRASHED, ENGINE_TIMEOUT) beside the message.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS error_code text;
ALTER TABLE node_runs ADD COLUMN IF NOT EXISTS error_code text;
