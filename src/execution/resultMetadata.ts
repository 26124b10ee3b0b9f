/**
 * The hosted service answers generated images as `output.result` (URLs) with `output.resultMetadata`, one
 * entry per image (docs/api.md, "Output keys"). The entries come from what the file store recorded when
 * each file was saved. Pure.
 */
export interface StoredFileFacts {
  bytes: number;
  width: number | null;
  height: number | null;
  contentType: string;
}

export interface ResultMetadata {
  size: number;
  width: number | null;
  height: number | null;
  modelId: string;
  mimeType: string;
  mediaType: string;
}

/** Metadata of a `result` list when every item is a stored image; undefined otherwise (text, audio, mixed). */
export function resultMetadata(files: Array<StoredFileFacts | undefined>, modelId: string): ResultMetadata[] | undefined {
  if (files.length === 0 || files.some((f) => !f || !f.contentType.startsWith('image/'))) return undefined;
  return (files as StoredFileFacts[]).map((f) => ({
    size: f.bytes, width: f.width, height: f.height, modelId, mimeType: f.contentType.split(';')[0]!.trim(), mediaType: 'image',
  }));
}
