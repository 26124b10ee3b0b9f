import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cropRect } from '../../../../../../src/engines/local/image/edit/cropRect.js';
import { EngineInputError } from '../../../../../../src/engines/types.js';

test('cropRect: percentages (defaults the whole image), rounded to pixels', () => {
  assert.deepEqual(cropRect({}, 200, 100), { left: 0, top: 0, width: 200, height: 100 });
  assert.deepEqual(cropRect({ x_percent: 0, y_percent: 0, width_percent: 100, height_percent: 100 }, 200, 100), { left: 0, top: 0, width: 200, height: 100 });
  assert.deepEqual(cropRect({ x_percent: 25, y_percent: 10, width_percent: 50, height_percent: 33.333 }, 200, 100), { left: 50, top: 10, width: 100, height: 33 });
  // Past the edge: clipped; a 0% size is still one pixel.
  assert.deepEqual(cropRect({ x_percent: 90, width_percent: 50 }, 200, 100), { left: 180, top: 0, width: 20, height: 100 });
  assert.deepEqual(cropRect({ x_percent: 100, width_percent: 0 }, 200, 100), { left: 199, top: 0, width: 1, height: 100 });
});

test('cropRect: pixels win; a size without a position is centred; a missing size is the rest of the image', () => {
  assert.deepEqual(cropRect({ x_px: 10, y_px: 20, width_px: 30, height_px: 40, x_percent: 50 }, 200, 100), { left: 10, top: 20, width: 30, height: 40 });
  assert.deepEqual(cropRect({ width_px: 100, height_px: 50 }, 200, 100), { left: 50, top: 25, width: 100, height: 50 });
  assert.deepEqual(cropRect({ x_px: 150 }, 200, 100), { left: 150, top: 0, width: 50, height: 100 });
  assert.deepEqual(cropRect({ width_px: 500, height_px: 500 }, 200, 100), { left: 0, top: 0, width: 200, height: 100 });
  // null is "not given", as the hosted schema allows.
  assert.deepEqual(cropRect({ x_px: null, y_px: null, width_px: 10, height_px: null }, 200, 100), { left: 95, top: 0, width: 10, height: 100 });
  assert.deepEqual(cropRect({ crop: { x: 5, y: 6, width: 7, height: 8 } }, 200, 100), { left: 5, top: 6, width: 7, height: 8 });
  assert.deepEqual(cropRect({ crop: { x: 5, y: 6, width: 7, height: 8 }, x_px: 1 }, 200, 100), { left: 1, top: 6, width: 7, height: 8 });
});

test('cropRect: a rectangle starting outside the image is an input error', () => {
  assert.throws(() => cropRect({ x_px: 200, width_px: 10 }, 200, 100), EngineInputError);
  assert.throws(() => cropRect({ y_px: 100 }, 200, 100), /outside the 200×100 image/);
});
