import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { models as imageModels } from '../../../src/catalog/models/localImage.js';
import { models as lipsyncModels } from '../../../src/catalog/models/localLipsync.js';
import { FONTS } from '../../../src/engines/local/image/common/fonts.js';
import { COMPOSITE_BLENDS, COMPOSITE_LAYOUTS, COMPOSITE_POSITIONS } from '../../../src/engines/local/image/edit/composite.js';
import { OUTPUT_FORMATS } from '../../../src/engines/local/image/edit/convert.js';
import { TEXT_POSITIONS } from '../../../src/engines/local/image/edit/textOverlay.js';
import { imageEngines } from '../../../src/engines/local/image/index.js';
import { NSFW_MODELS } from '../../../src/engines/local/image/ml/nsfw.work.js';
import { PSM_MODES } from '../../../src/engines/local/image/ml/ocrWords.js';
import { PALETTE_NAMES } from '../../../src/engines/local/image/procedural/palettes.js';
import { PATTERN_STYLES } from '../../../src/engines/local/image/procedural/pattern.work.js';
import { POSTER_STYLES } from '../../../src/engines/local/image/procedural/poster.work.js';
import { QR_LEVELS } from '../../../src/engines/local/image/procedural/qrCode.js';
import { lipsyncEngines } from '../../../src/engines/local/lipsync/index.js';

const all = [...imageModels, ...lipsyncModels];
const engines = new Map([...imageEngines, ...lipsyncEngines].map((e) => [e.id, e]));

function options(nodeType: string, field: string): Array<string | number> | undefined {
  return all.find((m) => m.nodeType === nodeType)?.modes[0]?.fields.find((x) => x.name === field)?.options;
}

describe('local image and lipsync catalog entries', () => {
  it('bind every mode to a registered engine, with well-formed ids', () => {
    const nodeTypes = new Set<string>();
    for (const m of all) {
      assert.match(m.nodeType, /^[a-z][a-z0-9_]*$/);
      assert.ok(!nodeTypes.has(m.nodeType), `duplicate ${m.nodeType}`);
      nodeTypes.add(m.nodeType);
      assert.equal(m.provider, 'local');
      assert.ok(m.icon && m.accent && m.description.length > 40, m.nodeType);
      for (const mode of m.modes) {
        assert.ok(mode.subModelId.startsWith(m.nodeType.replace(/_/g, '-')), mode.subModelId);
        assert.match(mode.subModelId, /^[a-z0-9]+(-[a-z0-9]+)*$/);
        assert.ok(engines.has(mode.engine.engine), `${mode.subModelId} → unknown engine ${mode.engine.engine}`);
        const names = mode.fields.map((x) => x.name);
        assert.equal(new Set(names).size, names.length, `duplicate field in ${mode.subModelId}`);
        assert.ok(mode.outputs.some((o) => o.name === 'result' || o.name === 'output'));
        assert.ok(mode.timeoutSeconds && mode.timeoutSeconds > 0);
        const p = mode.pricing;
        const cost = p.kind === 'flat' ? p.microcredits : p.kind === 'per_unit' ? p.microcreditsPerUnit : 0;
        assert.ok(cost >= 500 && cost <= 20_000, `${mode.subModelId} price ${cost}`);
        for (const x of mode.fields) {
          if (x.options && x.default !== undefined) assert.ok(x.options.includes(x.default as string), `${x.name} default is an option`);
          for (const dep of Object.keys(x.showWhen ?? {})) assert.ok(names.includes(dep), `${x.name} showWhen ${dep}`);
        }
      }
    }
    // crop_image moved to the hosted utilities (catalog/models/utilities.ts, test/engines/utilities.test.ts).
    assert.equal(all.length, 19);
  });

  it('offer the same option lists the engines accept', () => {
    assert.deepEqual(options('convert_image', 'format'), [...OUTPUT_FORMATS]);
    assert.deepEqual(options('composite_images', 'layout'), [...COMPOSITE_LAYOUTS]);
    assert.deepEqual(options('composite_images', 'position'), [...COMPOSITE_POSITIONS]);
    assert.deepEqual(options('composite_images', 'blend'), [...COMPOSITE_BLENDS]);
    assert.deepEqual(options('text_overlay', 'position'), [...TEXT_POSITIONS]);
    assert.deepEqual(options('text_overlay', 'font'), Object.keys(FONTS));
    assert.deepEqual(options('poster_render', 'style'), [...POSTER_STYLES]);
    assert.deepEqual(options('poster_render', 'palette'), ['auto', ...PALETTE_NAMES]);
    assert.deepEqual(options('pattern_art', 'style'), [...PATTERN_STYLES]);
    assert.deepEqual(options('qr_code', 'error_correction'), [...QR_LEVELS]);
    assert.deepEqual(options('ocr_image', 'layout'), Object.keys(PSM_MODES));
    assert.deepEqual(options('tesseract_ocr', 'layout'), Object.keys(PSM_MODES));
    assert.deepEqual(options('moderate_image', 'model'), Object.keys(NSFW_MODELS));
  });

  it('report availability and say why when unavailable', async () => {
    for (const e of engines.values()) {
      const a = await e.availability();
      assert.equal(typeof a.available, 'boolean');
      if (!a.available) assert.ok(a.reason, `${e.id} says why it is unavailable`);
    }
  });
});
