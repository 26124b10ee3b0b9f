/** Output caps shared by the video engines, so one run cannot tie up a small machine for long. */

/** Longest output, in seconds; longer inputs are cut at this point. */
export const MAX_SECONDS = 60;
/** Longest side of an output video, in pixels. */
export const MAX_SIDE = 1920;
/** Image inputs are reduced to this before use: enough for a 1.5× zoom into a 1920-wide frame. */
export const MAX_IMAGE_SIDE = 4096;
/** GIFs grow fast (no inter-frame compression to speak of): shorter and narrower than videos. */
export const MAX_GIF_SECONDS = 30;
export const MAX_GIF_WIDTH = 800;
