import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildInput, coerceValue, kindsFromModelSchema, kindsFromRequestFields, parseAssignment } from '../../../../src/cli/remote/inputs.js';
import { describeSnapshot, formatElapsed, ProgressLine } from '../../../../src/cli/remote/progress.js';
import { fileUrlsIn, safeName } from '../../../../src/cli/remote/download.js';
import { extensionFor } from '../../../../src/cli/remote/files.js';

const files: Record<string, { dataUrl: string; text: string }> = {
  'a.png': { dataUrl: 'data:image/png;base64,AAA=', text: '\u0000' },
  'b.png': { dataUrl: 'data:image/png;base64,BBB=', text: '\u0000' },
  'story.txt': { dataUrl: 'data:text/plain;base64,aGk=', text: 'hi' },
};
const read = (p: string) => {
  const f = files[p];
  if (!f) throw new Error(`no ${p}`);
  return f;
};

describe('--input KEY=VALUE', () => {
  test('splits at the first =, keeps later = and empty values, refuses a bare word', () => {
    assert.deepEqual(parseAssignment('text=a=b', '--input'), { key: 'text', raw: 'a=b' });
    assert.deepEqual(parseAssignment('text=', '--input'), { key: 'text', raw: '' });
    assert.throws(() => parseAssignment('text', '--input'), /--input expects KEY=VALUE/);
    assert.throws(() => parseAssignment('=x', '--input'), /--input expects KEY=VALUE/);
  });

  test('coerces by the field type, and says which field was wrong', () => {
    assert.equal(coerceValue('w', '12', { jsonType: 'integer' }, read), 12);
    assert.equal(coerceValue('s', '0.5', { jsonType: 'number' }, read), 0.5);
    assert.throws(() => coerceValue('--input w', '12px', { jsonType: 'integer' }, read), /--input w expects a number, got "12px"/);
    assert.throws(() => coerceValue('--input w', '', { jsonType: 'number' }, read), /expects a number/);
    assert.equal(coerceValue('b', 'yes', { jsonType: 'boolean' }, read), true);
    assert.equal(coerceValue('b', 'false', { jsonType: 'boolean' }, read), false);
    assert.throws(() => coerceValue('--input b', 'maybe', { jsonType: 'boolean' }, read), /true or false/);
    assert.equal(coerceValue('t', '42', { jsonType: 'string' }, read), '42', 'a string field keeps digits as text');
    assert.deepEqual(coerceValue('o', '{"a":1}', { jsonType: 'object' }, read), { a: 1 });
    assert.throws(() => coerceValue('--input o', '{a', { jsonType: 'object' }, read), /JSON object/);
  });

  test('an unknown field gets JSON when it parses and the text otherwise (the server validates)', () => {
    assert.equal(coerceValue('x', '3', {}, read), 3);
    assert.equal(coerceValue('x', 'true', {}, read), true);
    assert.equal(coerceValue('x', 'hello', {}, read), 'hello');
    assert.equal(coerceValue('x', '"quoted"', {}, read), '"quoted"');
  });

  test('@path is a data: URL for media fields and the text for text fields; @@ escapes', () => {
    assert.equal(coerceValue('img', '@a.png', { jsonType: 'string', media: true }, read), 'data:image/png;base64,AAA=');
    assert.equal(coerceValue('t', '@story.txt', { jsonType: 'string' }, read), 'hi');
    assert.equal(coerceValue('t', '@@handle', { jsonType: 'string' }, read), '@handle');
    assert.equal(coerceValue('t', '@', { jsonType: 'string' }, read), '@');
  });

  test('arrays: a repeated key collects, a JSON array is taken whole, a single value is wrapped', () => {
    const kinds = kindsFromModelSchema({
      jsonSchema: { properties: { image_urls: { type: 'array', items: { type: 'string' } }, seeds: { type: 'array', items: { type: 'integer' } }, n: { type: 'integer' } } },
      fields: [{ name: 'image_urls', dataType: 'image' }],
    });
    assert.deepEqual(buildInput([{ key: 'image_urls', raw: '@a.png' }, { key: 'image_urls', raw: '@b.png' }], kinds, read),
      { image_urls: ['data:image/png;base64,AAA=', 'data:image/png;base64,BBB='] });
    assert.deepEqual(buildInput([{ key: 'seeds', raw: '[1,2]' }], kinds, read), { seeds: [1, 2] });
    assert.deepEqual(buildInput([{ key: 'seeds', raw: '7' }], kinds, read), { seeds: [7] });
    assert.deepEqual(buildInput([{ key: 'n', raw: '1' }, { key: 'n', raw: '2' }], kinds, read), { n: [1, 2] });
  });

  test('kinds from a schema read nullable types and enums; Request fields by id and name', () => {
    const k = kindsFromModelSchema({ jsonSchema: { properties: { a: { type: ['integer', 'null'] }, b: { enum: [1, 2] }, c: { enum: ['x'] } } } });
    assert.deepEqual([k.a!.jsonType, k.b!.jsonType, k.c!.jsonType], ['integer', 'number', 'string']);
    const r = kindsFromRequestFields([{ id: 'f1', name: 'count', type: 'number' }, { id: 'f2', name: 'photo', type: 'image' }, { id: 'f3', name: 'x', type: 'any' }]);
    assert.equal(r.f1!.jsonType, 'number');
    assert.equal(r.count!.jsonType, 'number');
    assert.equal(r.photo!.media, true);
    assert.deepEqual(r.x, {});
  });
});

describe('progress display', () => {
  const sink = (isTTY: boolean) => {
    const chunks: string[] = [];
    return { chunks, stream: { isTTY, columns: 60, write: (c: string) => chunks.push(c) } };
  };

  test('describes status, progress and message; elapsed in seconds then minutes', () => {
    assert.equal(describeSnapshot({ status: 'RUNNING', progress: 0.456, progressMessage: 'rendering' }), 'RUNNING 46% rendering');
    assert.equal(describeSnapshot({ status: 'QUEUED' }), 'QUEUED');
    assert.equal(formatElapsed(1234), '1.2s');
    assert.equal(formatElapsed(125_000), '2m05s');
  });

  test('off a terminal: one line per change, none repeated, no control characters', () => {
    const { chunks, stream } = sink(false);
    const p = new ProgressLine(stream, 'run_1 x');
    for (const s of [{ status: 'QUEUED' }, { status: 'QUEUED' }, { status: 'RUNNING', progress: 0.1 }, { status: 'RUNNING', progress: 0.1 }, { status: 'COMPLETED' }]) p.update(s);
    p.note('  node a COMPLETED');
    p.stop();
    assert.deepEqual(chunks, ['run_1 x QUEUED\n', 'run_1 x RUNNING 10%\n', 'run_1 x COMPLETED\n', '  node a COMPLETED\n']);
  });

  test('on a terminal: redraws one line in place within the width, and clears it at the end', () => {
    const { chunks, stream } = sink(true);
    let now = 0;
    const p = new ProgressLine(stream, 'run_1 ' + 'y'.repeat(80), () => now);
    p.update({ status: 'RUNNING', progress: 0.5 });
    now = 1500;
    p.note('  node a RUNNING');
    p.stop();
    assert.ok(chunks[0]!.startsWith('\r\x1b[2K'));
    assert.ok(!chunks[0]!.includes('\n'));
    assert.ok(chunks[0]!.length - 5 <= 59, 'fits the 60 columns');
    assert.ok(chunks.includes('  node a RUNNING\n'));
    assert.match(chunks.at(-2)!, /1\.5s/);
    assert.equal(chunks.at(-1), '\r\x1b[2K');
  });
});

describe('saving outputs', () => {
  test('finds file URLs in workflow outputs and names them node-handle[-n]', () => {
    const u = (id: string) => `http://h:1/v1/files/${id}?exp=1&sig=x`;
    const found = fileUrlsIn({ video: { 'out:result': u('f1') }, frames: { 'out:result': [u('f2'), u('f3')] }, text: { 'out:output': 'http://h:1/not-a-file' } });
    assert.deepEqual(found, [
      { url: u('f1'), stem: 'video-result' },
      { url: u('f2'), stem: 'frames-result-1' },
      { url: u('f3'), stem: 'frames-result-2' },
    ]);
  });

  test('file names cannot leave the folder or hide', () => {
    assert.equal(safeName('../../etc/passwd'), 'passwd');
    assert.equal(safeName('.bashrc'), 'bashrc');
    assert.equal(safeName('a b/c:d?.png'), 'c_d_.png');
    assert.equal(safeName(''), 'output');
    assert.equal(extensionFor('image/png'), '.png');
    assert.equal(extensionFor('audio/wav; codecs=1'), '.wav');
    assert.equal(extensionFor('text/csv'), '.txt');
    assert.equal(extensionFor('application/x-unknown'), '.bin');
  });
});
