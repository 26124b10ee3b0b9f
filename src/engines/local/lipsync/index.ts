import type { Engine } from '../../types.js';
import { mouthAnimationEngine } from './mouthAnimation.js';

/** Offline lip-sync-like engines: amplitude-driven mouth animation (no neural lip-sync runs locally). */
export const lipsyncEngines: Engine[] = [mouthAnimationEngine];
