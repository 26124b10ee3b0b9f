import path from 'node:path';
import { EngineInputError } from '../../types.js';
import { AAC, H264, capSize, fileOutput } from './encode.js';
import { numberInput, stage, videoEngine } from './engine.js';
import { loadAudio, loadVideo } from './inputs.js';
import { MAX_SECONDS } from './limits.js';
import { ffmpeg } from './run.js';

/**
 * merge_audio_video (catalog/models/utilities.ts): the video's pictures with the given audio as their
 * only sound, scaled by audio_volume, cut to the video's length or padded with silence. The pictures
 * are re-encoded (H.264, even size) like every video output here, so any input codec works.
 */
export const mergeAudioVideoEngine = videoEngine({
  id: 'video-merge-audio',
  async run(input, ctx) {
    const volume = numberInput(input, 'audio_volume', 1);
    if (volume < 0 || volume > 2) throw new EngineInputError('audio_volume must be between 0 and 2');
    const video = await loadVideo(ctx, String(input.video_url), 'video_url', 'video');
    const audio = await loadAudio(ctx, String(input.audio_url), 'audio_url', 'audio');
    ctx.progress(0.15, 'reading inputs');
    const seconds = Math.min(MAX_SECONDS, video.probe.durationSeconds!);
    const { width, height } = capSize(video.probe.video!.width, video.probe.video!.height);
    const out = path.join(ctx.tmpDir, 'merged.mp4');
    const graph = [
      `[0:v]scale=${width}:${height},setsar=1,format=yuv420p[v]`,
      `[1:a]aresample=48000,aformat=channel_layouts=stereo,volume=${volume.toFixed(3)},apad,atrim=end=${seconds.toFixed(6)}[a]`,
    ].join(';');
    await ffmpeg(['-i', video.file, '-i', audio.file, '-filter_complex', graph, '-map', '[v]', '-map', '[a]', ...H264, ...AAC, '-t', seconds.toFixed(3), out], {
      signal: ctx.signal, deadline: ctx.deadline, expectedSeconds: seconds, onProgress: stage(ctx, 0.15, 0.95, 'merging'),
    });
    return { video_url: [await fileOutput(out, 'video/mp4', 'merged.mp4', ctx.signal)] };
  },
});
