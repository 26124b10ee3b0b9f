import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import { withErrors, type TypedApp } from '../schemas/common.js';
import { principalOf } from '../plugins/auth.js';
import { AppError } from '../../errors.js';
import { Readable } from 'node:stream';
import { contentDisposition, FILE_SECURITY_HEADERS } from '../../files/servePolicy.js';

/** Parses a single `bytes=a-b` range against a size; undefined for no/unsupported range, null if unsatisfiable. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | undefined | null {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return null;
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start > end || start >= size) return null;
  return { start, end };
}

/**
 * Artifact downloads and deletion. Downloads: to the owner's API key, or to anyone with a valid signed URL. Supports single byte
 * ranges so audio and video seek in players.
 */
export async function fileRoutes(app: TypedApp, { services }: { services: Services }): Promise<void> {
  app.get('/v1/files/:fileId', {
    config: { auth: 'optional' },
    schema: {
      tags: ['files'], summary: 'Download an artifact',
      description: 'Authenticated with the owner\'s API key, or with the exp and sig of a signed URL from a run output. Supports a single byte range (206). '
        + 'When the operator sets ATELIER_FILES_REDIRECT=presigned, a signed-URL download answers 302 with a Location of a short-lived presigned URL of the object store.',
      params: Type.Object({ fileId: Type.String({ maxLength: 100 }) }),
      querystring: Type.Object({ exp: Type.Optional(Type.String({ maxLength: 20 })), sig: Type.Optional(Type.String({ maxLength: 100 })) }),
    },
  }, async (req, reply) => {
    // Stored bytes never run as active content on this origin (src/files/servePolicy.ts): a sandboxing CSP,
    // no type sniffing, and anything but passive media as an attachment.
    reply.headers(FILE_SECURITY_HEADERS);
    const { fileId } = req.params;
    const { exp, sig } = req.query;
    let file;
    if (req.principal) file = await services.files.getOwned(fileId, req.principal.accountId);
    else if (exp !== undefined || sig !== undefined) {
      if (!(await services.files.verify(fileId, exp, sig))) throw new AppError('UNAUTHORIZED', 'The file link is invalid or has expired');
      file = await services.files.get(fileId);
      if (!file) throw new AppError('NOT_FOUND', 'file not found');
    } else throw new AppError('UNAUTHORIZED', 'Missing API key: send Authorization: Bearer gx_… or use a signed file URL');

    // ATELIER_FILES_REDIRECT=presigned: a signed link is answered by the object store itself (ranges included).
    if (!req.principal) {
      const direct = await services.files.directUrl(file);
      if (direct) return reply.header('Cache-Control', 'no-store').redirect(direct, 302);
    }

    reply.header('Accept-Ranges', 'bytes');
    // An unsatisfiable range answers the JSON error body: none of the file's own headers (type, name) apply to it.
    const range = parseRange(req.headers.range, file.bytes);
    if (range === null) {
      throw new AppError('RANGE_NOT_SATISFIABLE', 'Range not satisfiable', { headers: { 'Content-Range': `bytes */${file.bytes}` } });
    }
    reply.header('Cache-Control', 'private, max-age=3600');
    reply.header('ETag', `"${file.sha256}"`);
    reply.type(file.contentType);
    reply.header('Content-Disposition', contentDisposition(file.contentType, file.filename));
    if (range) {
      // The store reads only these bytes (S3: a ranged GET); HEAD reads none (Fastify would drain a real stream).
      const body = req.method === 'HEAD' ? Readable.from([]) : await services.files.open(file, range);
      reply.code(206);
      reply.header('Content-Range', `bytes ${range.start}-${range.end}/${file.bytes}`);
      reply.header('Content-Length', String(range.end - range.start + 1));
      return reply.send(body);
    }
    const body = req.method === 'HEAD' ? Readable.from([]) : await services.files.open(file);
    reply.header('Content-Length', String(file.bytes));
    return reply.send(body);
  });

  // Uploads and outputs count against the account's storage quota until they expire; deleting one frees its room now.
  app.delete('/v1/files/:fileId', {
    schema: {
      tags: ['files'], summary: 'Delete an artifact',
      description: 'Deletes one of the account\'s files (an upload or a run output): its signed URLs stop working and its bytes stop counting against the account\'s storage quota (ATELIER_STORAGE_QUOTA_MB). Another account\'s file is 404.',
      params: Type.Object({ fileId: Type.String({ maxLength: 100 }) }),
      response: withErrors({ 204: Type.Null() }, [404]),
    },
  }, async (req, reply) => {
    await services.files.remove(principalOf(req).accountId, req.params.fileId);
    return reply.code(204).send();
  });
}
