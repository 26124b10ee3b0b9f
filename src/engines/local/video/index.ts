import type { Engine } from '../../types.js';
import { burnCaptionsEngine } from './burnCaptions.js';
import { extractAudioEngine } from './extractAudio.js';
import { extractFrameEngine } from './frame.js';
import { gifEngine } from './gif.js';
import { kenBurnsEngine } from './kenBurns.js';
import { mergeEngine } from './merge.js';
import { mergeAudioVideoEngine } from './mergeAudioVideo.js';
import { slideshowEngine } from './slideshow.js';
import { trimEngine } from './trim.js';
import { waveformEngine } from './waveform.js';

/** The offline ffmpeg video engines, one per nodeType (catalog/models/localVideo.ts binds them). */
export const videoEngines: Engine[] = [
  kenBurnsEngine,
  slideshowEngine,
  waveformEngine,
  mergeEngine,
  mergeAudioVideoEngine,
  extractAudioEngine,
  trimEngine,
  gifEngine,
  extractFrameEngine,
  burnCaptionsEngine,
];

export { useVideoFfmpegBuild } from './ffmpegBuild.js';
