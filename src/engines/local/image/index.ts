import type { Engine } from '../../types.js';
import { tesseractCliEngine } from './cli/tesseractCli.js';
import { adjustEngine } from './edit/adjust.js';
import { blurEngine } from './edit/blur.js';
import { compositeEngine } from './edit/composite.js';
import { convertEngine } from './edit/convert.js';
import { cropEngine } from './edit/crop.js';
import { paletteEngine } from './edit/palette.js';
import { resizeEngine } from './edit/resize.js';
import { textOverlayEngine } from './edit/textOverlay.js';
import { backgroundRemovalEngine } from './ml/backgroundRemoval.js';
import { describeEngine } from './ml/describe.js';
import { esrganEngine } from './ml/esrgan.js';
import { facesEngine } from './ml/faces.js';
import { moderationEngine } from './ml/moderation.js';
import { objectsEngine } from './ml/objects.js';
import { ocrEngine } from './ml/ocr.js';
import { documentOcrEngine } from './ml/documentOcr.js';
import { paddleOcrEngine } from './ml/paddleOcr.js';
import { patternEngine } from './procedural/pattern.js';
import { posterEngine } from './procedural/poster.js';
import { qrEngine } from './procedural/qrCode.js';

/** Offline image engines: sharp/canvas utilities, procedural generators, and tfjs/ONNX/WASM models. */
export const imageEngines: Engine[] = [
  cropEngine, resizeEngine, convertEngine, adjustEngine, blurEngine, compositeEngine, textOverlayEngine, paletteEngine,
  posterEngine, qrEngine, patternEngine,
  esrganEngine, backgroundRemovalEngine, ocrEngine, documentOcrEngine, paddleOcrEngine, objectsEngine, facesEngine, moderationEngine, describeEngine,
  tesseractCliEngine,
];
