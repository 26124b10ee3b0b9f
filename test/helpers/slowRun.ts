import sharp from 'sharp';

/**
 * A real model run that reliably takes many seconds on this hardware (a 60 s 1080p Ken Burns video,
 * ~20 s of ffmpeg work), so tests can catch it while RUNNING to cancel, kill or time it out.
 */
export async function slowRunBody(): Promise<{ path: string; body: { input: Record<string, unknown> } }> {
  const png = await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 40, g: 90, b: 160 } } }).png().toBuffer();
  return {
    path: '/v1/nodes/ken_burns_video/run',
    body: { input: { image_url: `data:image/png;base64,${png.toString('base64')}`, duration: 60, width: 1920, height: 1080, fps: 60 } },
  };
}
