-- Streamed uploads (src/files/ingest.ts, issue 28): the bytes of an upload are not known until they have
-- arrived, so an upload holds room in its account's storage quota while it streams (or while a presigned
-- direct upload to the bucket is under way) and gives it back when it ends either way. A holding past its
-- expiry (a process killed mid-upload) no longer counts and is swept.
CREATE TABLE file_reservations (
  id          text PRIMARY KEY,
  account_id  text NOT NULL REFERENCES accounts(id),
  bytes       bigint NOT NULL CHECK (bytes >= 0),
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);
CREATE INDEX file_reservations_account ON file_reservations (account_id, expires_at);

-- A presigned multipart upload straight to the S3 bucket, between its start and its completion
-- (src/files/directUploads.ts). Atelier registers the object as a file only at completion, after checking it.
CREATE TABLE direct_uploads (
  id              text PRIMARY KEY,
  account_id      text NOT NULL REFERENCES accounts(id),
  reservation_id  text NOT NULL,
  object_key      text NOT NULL,
  s3_upload_id    text NOT NULL,
  bytes           bigint NOT NULL,
  part_bytes      bigint NOT NULL,
  declared_type   text,
  filename        text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  expires_at      timestamptz NOT NULL
);
CREATE INDEX direct_uploads_account ON direct_uploads (account_id);

-- The media library (GET /v1/files) pages by (created_at, id) at full precision.
CREATE INDEX files_account_created_id ON files (account_id, created_at DESC, id DESC);
