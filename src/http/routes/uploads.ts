import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../services.js';
import { withErrors, type TypedApp } from '../schemas/common.js';
import { principalOf } from '../plugins/auth.js';
import { AppError } from '../../errors.js';
import { bytesOfSource, MAX_UPLOAD_BYTES, uploadsOf } from '../../files/upload.js';
import { describeFile } from '../../files/library.js';
import { directUploadsOf } from '../../files/directUploads.js';
import { firstFilePart } from '../multipartFile.js';
import { FileDocumentSchema, DirectUploadStartBody, DirectUploadSchema, DirectUploadCompleteBody } from '../schemas/files.js';

const tags = ['files'];
/** A JSON body carries a file inline as base64 (4/3 of its size) or a data: URI. */
const JSON_BODY_LIMIT = Math.ceil((MAX_UPLOAD_BYTES * 4) / 3) + 64 * 1024;
/** What a multipart body adds around its file (boundaries, part headers, small fields). */
const MULTIPART_SLACK = 1024 * 1024;

function contentLength(req: FastifyRequest): number | undefined {
  const n = Number(req.headers['content-length']);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

function mediaTypeOf(req: FastifyRequest): string {
  return String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * A refused upload is answered before its body has all arrived: the rest is read and dropped (so the
 * answer reaches the client) and the connection closes after it rather than carrying the unread bytes.
 */
function abandonBody(req: FastifyRequest, reply: FastifyReply): void {
  if (req.raw.complete) return;
  reply.header('connection', 'close');
  req.raw.resume();
}

/**
 * Uploads and the media library (issue 28): POST /v1/files streams a file into the store (raw body,
 * multipart, or the hosted upload_file's JSON: url, data: URI or base64); GET /v1/files lists the account's
 * uploads and run outputs; presigned direct uploads to an S3 bucket. Downloads and deletes: routes/files.ts.
 */
export async function uploadRoutes(app: TypedApp, { services }: { services: Services }): Promise<void> {
  const uploads = () => uploadsOf(services.files, services.db, services.config.storage.uploadMaxBytes);
  // Any body but JSON reaches the handler as the request stream (this plugin only): a file is never buffered.
  app.addContentTypeParser('*', (_req, payload, done) => done(null, payload));

  app.post('/v1/files', {
    bodyLimit: JSON_BODY_LIMIT,
    schema: {
      tags, summary: 'Upload a file',
      description: 'Stores an image, audio or video file as the account\'s file and answers its id and URLs; pass either URL (or the id\'s stableUrl) as a media input of any model. '
        + 'The body is the file itself (Content-Type: its media type, or application/octet-stream; optional ?filename=), multipart/form-data (the first file part), '
        + `or JSON { url | data | base64, contentType?, filename? } as MCP upload_file takes (inline or fetched files at most ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB). `
        + 'The bytes decide the type: a Content-Type that is not what the bytes are is refused (415). At most ATELIER_UPLOAD_MAX_MB (default 512) MiB; counts against the storage quota (413 STORAGE_QUOTA_EXCEEDED).',
      querystring: Type.Object({ filename: Type.Optional(Type.String({ maxLength: 200 })) }),
      response: withErrors({ 201: FileDocumentSchema }, [413, 415, 507]),
    },
  }, async (req, reply) => {
    const accountId = principalOf(req).accountId;
    const type = mediaTypeOf(req);
    const u = uploads();
    try {
      let rec;
      if (type === 'application/json') {
        const body = (req.body ?? {}) as Record<string, unknown>;
        const str = (k: string) => (typeof body[k] === 'string' ? body[k] as string : undefined);
        const { bytes, path } = await bytesOfSource({ url: str('url'), data: str('data'), base64: str('base64') }, {
          files: services.files, accountId, publicUrl: services.publicUrl,
          allowPrivate: services.config.allowPrivateUrls, timeoutMs: services.config.mediaTimeoutMs, maxBytes: Math.min(MAX_UPLOAD_BYTES, u.maxBytes),
        });
        rec = await u.ingestBuffer(accountId, bytes, { declaredType: str('contentType') ?? str('mimeType'), filename: str('filename'), path: `body.${path}` });
      } else if (type === 'multipart/form-data') {
        const length = contentLength(req);
        if (length !== undefined && length > u.maxBytes + MULTIPART_SLACK) throw new AppError('PAYLOAD_TOO_LARGE', `the upload is about ${length} bytes; uploads are at most ${u.maxBytes} bytes (ATELIER_UPLOAD_MAX_MB)`);
        const part = await firstFilePart(req.body as Readable, req.headers, u.maxBytes);
        rec = await u.ingest(accountId, {
          body: part.stream, declaredType: part.fields.contentType ?? part.mimeType, filename: part.fields.filename ?? part.filename ?? req.query.filename,
          declaredBytes: length === undefined ? undefined : Math.min(length, u.maxBytes), path: 'body.file',
        });
      } else {
        // A POST without Content-Type and without a body reaches no parser, so there is no stream to read.
        if (!(req.body instanceof Readable)) {
          throw new AppError('VALIDATION_ERROR', 'the request has no body: send the file\'s bytes (Content-Type: its media type), multipart/form-data, or JSON { url | data | base64 }',
            { details: [{ path: 'body', message: 'is required' }] });
        }
        rec = await u.ingest(accountId, { body: req.body, declaredType: type, filename: req.query.filename, declaredBytes: contentLength(req), path: 'body' });
      }
      reply.header('Location', `/v1/files/${rec.id}/metadata`);
      return reply.code(201).send(await describeFile(services.files, rec) as never);
    } catch (err) {
      abandonBody(req, reply);
      throw err;
    }
  });

  app.get('/v1/files', {
    schema: {
      tags, summary: 'List the account\'s files (uploads and run outputs), newest first',
      description: 'The media library. Filters: kind (image, audio, video: the content type\'s family), source (upload or output), runId, createdAfter (inclusive) and createdBefore (exclusive). Pass nextCursor back as cursor for the next page.',
      querystring: Type.Object({
        cursor: Type.Optional(Type.String({ maxLength: 500 })),
        limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
        kind: Type.Optional(Type.Union([Type.Literal('image'), Type.Literal('audio'), Type.Literal('video')])),
        source: Type.Optional(Type.Union([Type.Literal('upload'), Type.Literal('output')])),
        runId: Type.Optional(Type.String({ maxLength: 100 })),
        createdAfter: Type.Optional(Type.String({ format: 'date-time' })),
        createdBefore: Type.Optional(Type.String({ format: 'date-time' })),
      }),
      response: withErrors({ 200: Type.Object({ items: Type.Array(FileDocumentSchema), nextCursor: Type.Union([Type.String(), Type.Null()]) }) }),
    },
  }, async (req) => {
    const q = req.query;
    const page = await services.files.list(principalOf(req).accountId, {
      cursor: q.cursor, limit: q.limit, kind: q.kind, source: q.source, runId: q.runId,
      createdAfter: q.createdAfter ? new Date(q.createdAfter) : undefined, createdBefore: q.createdBefore ? new Date(q.createdBefore) : undefined,
    });
    return { items: await Promise.all(page.files.map((f) => describeFile(services.files, f))), nextCursor: page.nextCursor } as never;
  });

  app.get('/v1/files/:fileId/metadata', {
    schema: {
      tags, summary: 'A file\'s metadata',
      description: 'What the library lists of one file (GET /v1/files/{fileId} downloads its bytes). Another account\'s file is 404.',
      params: Type.Object({ fileId: Type.String({ maxLength: 100 }) }),
      response: withErrors({ 200: FileDocumentSchema }, [404]),
    },
  }, async (req) => describeFile(services.files, await services.files.getOwned(req.params.fileId, principalOf(req).accountId)) as never);

  app.post('/v1/uploads', {
    schema: {
      tags, summary: 'Start a direct upload to the object store',
      description: 'With the S3 artifact store only (else 409): answers presigned part URLs of a multipart upload straight to the bucket. PUT each part\'s bytes (partBytes each, the last one shorter) to its url, keep each answer\'s ETag header, then POST …/complete. '
        + 'The declared bytes are held against the storage quota until completion or expiry; Atelier checks the object\'s size, type and quota when it registers it.',
      body: DirectUploadStartBody,
      response: withErrors({ 201: DirectUploadSchema }, [409, 413]),
    },
  }, async (req, reply) => {
    const started = await directUploadsOf(services).start(principalOf(req).accountId, req.body);
    return reply.code(201).send(started as never);
  });

  app.post('/v1/uploads/:uploadId/complete', {
    schema: {
      tags, summary: 'Complete a direct upload and register the file',
      params: Type.Object({ uploadId: Type.String({ maxLength: 100 }) }),
      body: DirectUploadCompleteBody,
      response: withErrors({ 201: FileDocumentSchema }, [404, 409, 413, 415]),
    },
  }, async (req, reply) => {
    const rec = await directUploadsOf(services).complete(principalOf(req).accountId, req.params.uploadId, req.body.parts);
    reply.header('Location', `/v1/files/${rec.id}/metadata`);
    return reply.code(201).send(await describeFile(services.files, rec) as never);
  });

  app.delete('/v1/uploads/:uploadId', {
    schema: {
      tags, summary: 'Abandon a direct upload',
      params: Type.Object({ uploadId: Type.String({ maxLength: 100 }) }),
      response: withErrors({ 204: Type.Null() }, [404, 409]),
    },
  }, async (req, reply) => {
    await directUploadsOf(services).abort(principalOf(req).accountId, req.params.uploadId);
    return reply.code(204).send();
  });
}
