import type { ModeDef } from '../catalog/types.js';
import { AppError } from '../errors.js';
import { audioHeaderShape } from '../engines/local/audio/header.js';
import { checkAudioShape } from '../engines/local/audio/limits.js';
import { EngineInputError } from '../engines/types.js';

/** Enough of an inline file for its header (base64 characters, a multiple of 4). */
const HEAD_CHARS = 65_536;

function headOfDataUrl(url: string): Buffer | undefined {
  const comma = url.indexOf(',');
  if (!url.startsWith('data:') || comma < 0 || !url.slice(0, comma).endsWith(';base64')) return undefined;
  return Buffer.from(url.slice(comma + 1, comma + 1 + HEAD_CHARS), 'base64');
}

/**
 * At create, an audio input given inline (a data: URL, its bytes in the request) whose header says it is
 * over the audio caps (src/engines/local/audio/limits.ts) is refused with 400 INPUT_TOO_LARGE, before
 * anything is reserved or queued. Inputs behind a URL are checked by the engine when it reads them (the run
 * then fails INPUT_TOO_LARGE, refunded).
 */
export function checkInlineAudio(mode: ModeDef, input: Record<string, unknown>, at: string): void {
  for (const field of mode.fields) {
    if (field.dataType !== 'audio') continue;
    const value = input[field.name];
    const list = Array.isArray(value) ? value : [value];
    for (const [i, v] of list.entries()) {
      if (typeof v !== 'string') continue;
      const head = headOfDataUrl(v);
      const shape = head && audioHeaderShape(head);
      if (!shape) continue;
      const path = `${at}.${field.name}${Array.isArray(value) ? `[${i}]` : ''}`;
      try {
        checkAudioShape(path, shape);
      } catch (err) {
        if (!(err instanceof EngineInputError)) throw err;
        throw new AppError('INPUT_TOO_LARGE', err.message, { details: [{ path, message: err.message.slice(path.length + 1) }] });
      }
    }
  }
}
