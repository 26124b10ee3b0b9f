/**
 * How stored files are served (GET /v1/files/{id}): they are other people's bytes on the web app's own
 * origin, so none of them may ever run as active content there (an SVG or HTML with a script would act
 * with the signed-in reader's session: issue 26, finding 1). Three layers, each enough on its own:
 *
 * - every file answers with `Content-Security-Policy: sandbox; default-src 'none'` (a unique opaque origin,
 *   no script, no subresources) and `X-Content-Type-Options: nosniff` (the browser keeps the stored type);
 * - only passive media types (raster images, audio, video, plain text) are shown inline; every other type
 *   (SVG, HTML, XML, PDF, anything unknown) is sent as an attachment, so the browser downloads it;
 * - uploads refuse script-capable types in the first place (SCRIPT_CAPABLE, src/web/routes/editor.ts).
 *
 * Pure.
 */

/** The headers every stored file is answered with, whatever its type. */
export const FILE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "sandbox; default-src 'none'",
  'X-Content-Type-Options': 'nosniff',
};

/** Media types a browser renders without ever running script (decoders, not documents). */
const PASSIVE = /^(image\/(png|jpeg|gif|webp|avif|bmp|x-icon|vnd\.microsoft\.icon|tiff|heic|heif)|audio\/[a-z0-9.+-]+|video\/[a-z0-9.+-]+|text\/plain)$/;

/** Whether a stored type may be shown inline (else it is an attachment). */
export function servedInline(contentType: string): boolean {
  return PASSIVE.test(contentType.split(';')[0]!.trim().toLowerCase());
}

/** Types that can carry script when a browser opens them as a document: never accepted as uploads. */
export function scriptCapable(contentType: string): boolean {
  const t = contentType.split(';')[0]!.trim().toLowerCase();
  return /(^|[/+])(svg|xml|html|xhtml|javascript|ecmascript)($|[+.])/.test(t) || /^(text\/html|application\/(pdf|x-shockwave-flash))$/.test(t);
}

/** The Content-Disposition of a stored file: inline for passive media, attachment for the rest; the name made header-safe. */
export function contentDisposition(contentType: string, filename: string | null | undefined): string {
  const kind = servedInline(contentType) ? 'inline' : 'attachment';
  return filename ? `${kind}; filename="${filename.replace(/[^\x20-\x7e]|["\\]/g, '_')}"` : kind;
}
