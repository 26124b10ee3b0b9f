import { Type } from '@sinclair/typebox';

/** A file as uploads answer it and the library lists it (src/files/library.ts, FileDocument). */
export const FileDocumentSchema = Type.Object({
  id: Type.String({ examples: ['file_01JD8Y3Q6W5B2M1X9K7T4C0E2F'] }),
  url: Type.String({ description: 'Signed URL; works without an API key until it expires' }),
  stableUrl: Type.String({ description: 'Never expires: downloads with the owner\'s key; the owner\'s runs take it as a media input' }),
  contentType: Type.String({ description: 'What the bytes are (recognised from them, not from the upload\'s claim)' }),
  bytes: Type.Integer(),
  filename: Type.Optional(Type.String()),
  width: Type.Optional(Type.Integer()),
  height: Type.Optional(Type.Integer()),
  durationSeconds: Type.Optional(Type.Number()),
  source: Type.Union([Type.Literal('upload'), Type.Literal('output')]),
  runId: Type.Union([Type.String(), Type.Null()], { description: 'The run that wrote it; null for an upload' }),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When retention removes it; null: kept until deleted' }),
});

export const DirectUploadStartBody = Type.Object({
  bytes: Type.Integer({ minimum: 1, description: 'The file\'s exact size' }),
  contentType: Type.Optional(Type.String({ maxLength: 100, description: 'What the file is; checked against its bytes at completion' })),
  filename: Type.Optional(Type.String({ maxLength: 200 })),
}, { additionalProperties: false });

export const DirectUploadSchema = Type.Object({
  uploadId: Type.String(),
  partBytes: Type.Integer({ description: 'Every part but the last is exactly this long' }),
  parts: Type.Array(Type.Object({ partNumber: Type.Integer(), url: Type.String({ description: 'PUT the part\'s bytes here; keep the ETag of the answer' }) })),
  completeUrl: Type.String(),
  expiresAt: Type.String({ format: 'date-time' }),
});

export const DirectUploadCompleteBody = Type.Object({
  parts: Type.Array(Type.Object({ partNumber: Type.Integer({ minimum: 1, maximum: 10_000 }), etag: Type.String({ maxLength: 200 }) }), { minItems: 1, maxItems: 10_000 }),
}, { additionalProperties: false });
