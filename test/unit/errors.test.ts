// Services name the fields of their arguments; the transport says where each was sent (issue 27: "services
// stop speaking HTTP"). These check that placing a service's field error gives the answer the API gave
// before the services stopped writing `body.`/`query.`/`params.` themselves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError, asFieldErrors, FieldError, fieldError, placeFields } from '../../src/errors.js';

const body = () => 'body' as const;

test('a named field error is placed in its message and its details', () => {
  const placed = placeFields(fieldError('values.req.prompt', 'is required'), body) as AppError;
  assert.equal(placed.message, 'body.values.req.prompt is required');
  assert.deepEqual(placed.details, [{ path: 'body.values.req.prompt', message: 'is required' }]);
  assert.equal(placed.status, 400);
  assert.ok(!(placed instanceof FieldError));
});

test('an unnamed field error keeps its message; only the details are placed, by the first segment', () => {
  const err = new FieldError('VALIDATION_ERROR', 'status must be one of QUEUED, RUNNING', false, [{ path: 'status', message: 'is not a run status' }]);
  const placed = placeFields(err, (f) => (f === 'status' ? 'query' : 'body')) as AppError;
  assert.equal(placed.message, 'status must be one of QUEUED, RUNNING');
  assert.deepEqual(placed.details, [{ path: 'query.status', message: 'is not a run status' }]);
});

test('other errors pass unplaced', () => {
  const plain = new AppError('INVALID_GRAPH', 'node n1: bad', { details: [{ path: 'nodes.n1', message: 'bad' }] });
  assert.equal(placeFields(plain, body), plain);
  const boom = new Error('x');
  assert.equal(placeFields(boom, body), boom);
});

test('asFieldErrors takes the catalog errors under its root, named where their message names the field', () => {
  const inMiddle = () => {
    throw new AppError('VALIDATION_ERROR', 'subModelId "a" and input.subModelId "b" name different modes', { details: [{ path: 'input.subModelId', message: 'differs from subModelId' }] });
  };
  let caught: unknown;
  try { asFieldErrors('input', inMiddle); } catch (err) { caught = err; }
  assert.ok(caught instanceof FieldError);
  assert.equal((placeFields(caught, body) as AppError).message, 'subModelId "a" and body.input.subModelId "b" name different modes');

  const outside = new AppError('MODEL_NOT_FOUND', 'Unknown model "x"', { details: [{ path: 'nodeType', message: 'unknown model "x"' }] });
  assert.throws(() => asFieldErrors('input', () => { throw outside; }), (err) => err === outside);
  assert.equal(asFieldErrors('input', () => 7), 7);
});
