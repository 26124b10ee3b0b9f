import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import { noChromium, openBrowser, type OpenBrowser } from './chromium.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// The visual workflow editor (/workflows/new, /workflows/{id}/edit) in a real headless Chromium, driven
// by mouse as a person would: drag a model from the palette, wire ports, set a value, save, reload, run.
// ATELIER_SCREENSHOTS=1 also writes the editor's screenshots to docs/screenshots/ (for the README).

const SHOTS = process.env.ATELIER_SCREENSHOTS === '1' ? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/screenshots') : undefined;

let srv: TestServer;
let profile: string;
let chromiumHandle: OpenBrowser | undefined;
let page: Page;
let user: { email: string; key: string; accountId: string };
let workflowId: string;
let firstRun: string;
let secondRun: string;
const pageErrors: string[] = [];

async function shot(name: string): Promise<void> {
  if (!SHOTS) return;
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

async function api(pathname: string) {
  const res = await fetch(srv.url + pathname, { headers: { authorization: `Bearer ${user.key}` } });
  return { status: res.status, body: await res.json() as any };
}

const node = (type: string): Locator => page.locator(`.react-flow__node .wf-node[data-type="${type}"]`);
const handle = (n: Locator, id: string): Locator => n.locator(`.react-flow__handle[data-handleid="${id}"]`);

/** Wires two ports with the mouse: press on one handle, move in steps, release on the other. */
async function connect(from: Locator, to: Locator): Promise<void> {
  const a = (await from.boundingBox())!;
  const b = (await to.boundingBox())!;
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 12 });
  await page.mouse.up();
}

async function message(): Promise<string> {
  return (await page.locator('.editor-message').textContent()) ?? '';
}

describe('the workflow editor in Chromium', { timeout: 240_000, skip: noChromium }, () => {
  before(async () => {
    // Private URLs allowed: the webhook of the delivery-log check points at a closed local port.
    srv = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1' });
    user = await srv.user({ email: `editor-${process.pid}@example.com` });
    ({ page, profile } = chromiumHandle = await openBrowser(pageErrors));
    await page.goto(`${srv.url}/login`);
    await page.fill('#email', user.email);
    await page.fill('#password', 'correct horse battery');
    await Promise.all([page.waitForURL(/\/runs$/), page.press('#password', 'Enter')]);
  });

  after(async () => {
    await chromiumHandle?.close();
    await srv?.close();
  });

  test('a three-node workflow built by mouse is saved, reloads the same, and the API returns exactly it', async () => {
    await page.goto(`${srv.url}/workflows/new`);
    await node('request').waitFor();
    assert.equal(await page.locator('.react-flow__node').count(), 2, 'a new workflow starts with its Request and Response nodes');

    // The palette searches like /v1/models/search: "tts" finds the text-to-speech models, eSpeak among them.
    await page.fill('#palette-search', 'tts');
    // The search's answer replaces the whole catalog with its text-to-speech group.
    await page.waitForFunction(() => {
      const groups = [...document.querySelectorAll('.palette-group summary')].map((e) => e.textContent ?? '');
      return groups.length === 1 && groups[0]!.startsWith('text-to-speech');
    });
    const entry = page.locator('.palette-item[data-node-type="espeak_tts"]');
    const canvas = (await page.locator('.react-flow__pane').boundingBox())!;
    await entry.dragTo(page.locator('.react-flow__pane'), { targetPosition: { x: canvas.width / 2 - 60, y: canvas.height / 2 + 40 } });
    const tts = node('espeak_tts');
    await tts.waitFor();

    await connect(handle(node('request'), 'prompt'), handle(tts, 'in:text'));
    await connect(handle(tts, 'out:result'), handle(node('response'), 'result'));
    await page.waitForFunction(() => document.querySelectorAll('.react-flow__edge').length === 2);

    await tts.click({ position: { x: 20, y: 12 } });
    const ttsId = (await tts.getAttribute('data-node-id'))!;
    await page.fill(`#f-${ttsId}-speed`, '200');
    // The estimate follows the graph: the endpoint's figure for eSpeak's minimum price.
    const est = await srv.request('POST', '/v1/workflows/estimate-credits', { key: user.key, body: { nodes: [{ type: 'espeak_tts', data: { speed: 200 } }] } });
    await page.waitForFunction((want) => document.querySelector('.estimate')?.getAttribute('data-total') === String(want), est.body.totalMicrocredits);
    await page.fill('#wf-name', 'Spoken prompt');
    await shot('editor-build');

    await Promise.all([page.waitForURL(/\/workflows\/wf_[0-9A-Za-z]+\/edit\?saved=1$/), page.click('button:has-text("Create")')]);
    workflowId = /\/workflows\/(wf_[0-9A-Za-z]+)\/edit/.exec(page.url())![1]!;
    await page.reload();
    await node('espeak_tts').waitFor();
    assert.equal(await page.locator('.react-flow__node').count(), 3);
    assert.equal(await page.locator('.react-flow__edge').count(), 2);
    await node('espeak_tts').click({ position: { x: 20, y: 12 } });
    assert.equal(await page.inputValue(`#f-${ttsId}-speed`), '200');

    // The API returns what was built: the same node ids, positions, values and wiring.
    const { status, body: wf } = await api(`/v1/workflows/${workflowId}`);
    assert.equal(status, 200);
    assert.equal(wf.name, 'Spoken prompt');
    const onCanvas = await page.$$eval('.react-flow__node', (els) => els.map((el) => {
      const m = /translate\(([-\d.]+)px, ?([-\d.]+)px\)/.exec((el as HTMLElement).style.transform)!;
      return { id: el.getAttribute('data-id'), x: Math.round(Number(m[1])), y: Math.round(Number(m[2])) };
    }));
    assert.deepEqual(wf.nodes.map((n: any) => ({ id: n.id, x: n.position.x, y: n.position.y })).sort((a: any, b: any) => a.id.localeCompare(b.id)), onCanvas.sort((a, b) => a.id!.localeCompare(b.id!)));
    const request = wf.nodes.find((n: any) => n.type === 'request');
    const response = wf.nodes.find((n: any) => n.type === 'response');
    const speech = wf.nodes.find((n: any) => n.type === 'espeak_tts');
    assert.equal(speech.id, ttsId);
    assert.deepEqual(speech.data, { speed: 200 });
    assert.deepEqual(wf.edges.map((e: any) => `${e.source}.${e.sourceHandle}>${e.target}.${e.targetHandle}`).sort(),
      [`${request.id}.prompt>${ttsId}.in:text`, `${ttsId}.out:result>${response.id}.result`].sort());
  });

  test('connections the validator refuses are refused on the canvas with its message', async () => {
    const tts = node('espeak_tts');
    // A second edge into the single-input port in:text.
    await connect(handle(node('request'), 'prompt'), handle(tts, 'in:text'));
    assert.match(await message(), /Connection refused: .*this input takes one edge; it has several/);
    // Audio into a text input, on a second eSpeak node added by click.
    await page.locator('.palette-item[data-node-type="espeak_tts"]').click();
    await page.waitForFunction(() => document.querySelectorAll('.wf-node[data-type="espeak_tts"]').length === 2);
    const second = tts.nth(1);
    await connect(handle(tts.first(), 'out:result'), handle(second, 'in:text'));
    assert.match(await message(), /Connection refused: .*audio from node_\w+\.out:result cannot feed a text input/);
    await connect(handle(tts.first(), 'out:result'), handle(tts.first(), 'in:text'));
    assert.match(await message(), /Connection refused: .*(connects the node to itself|cannot feed)/);
    await shot('editor-refused');
    assert.equal(await page.locator('.react-flow__edge').count(), 2, 'no refused edge was drawn');
    // The added node is still selected: Delete removes it, and undo brings it back.
    await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    await second.click({ position: { x: 20, y: 12 } });
    await page.keyboard.press('Delete');
    await page.waitForFunction(() => document.querySelectorAll('.wf-node[data-type="espeak_tts"]').length === 1);
    await page.keyboard.press('Control+z');
    await page.waitForFunction(() => document.querySelectorAll('.wf-node[data-type="espeak_tts"]').length === 2);
    await page.keyboard.press('Control+Shift+z');
    await page.waitForFunction(() => document.querySelectorAll('.wf-node[data-type="espeak_tts"]').length === 1);
    assert.equal(await page.getAttribute('.editor', 'data-dirty'), 'false', 'back to the saved graph');
  });

  test('Run: the form of the Request fields, live node status, cost per node, and playable audio', async () => {
    await page.click('button:has-text("Run…")');
    await page.fill('#run-prompt', 'Hello from the workflow editor');
    await page.click('button:has-text("Start run")');
    await page.waitForSelector('[data-run-status="COMPLETED"]', { timeout: 120_000 });
    const tts = node('espeak_tts');
    await page.waitForFunction(() => document.querySelector('.wf-node[data-type="espeak_tts"]')?.getAttribute('data-status') === 'COMPLETED');
    const audio = tts.locator('audio');
    await audio.waitFor();
    const duration = await audio.evaluate((el: HTMLAudioElement) => new Promise<number>((resolve, reject) => {
      el.addEventListener('loadedmetadata', () => resolve(el.duration), { once: true });
      el.addEventListener('error', () => reject(new Error(`audio error ${el.error?.code}`)), { once: true });
      el.preload = 'metadata';
      el.load();
    }));
    assert.ok(duration > 0.3, `the spoken prompt plays (${duration} s)`);
    const runId = (await page.locator('.run-status a code').textContent())!;
    const run = (await api(`/v1/runs/${runId}`)).body;
    const nr = run.nodeRuns.find((n: any) => n.nodeType === 'espeak_tts');
    assert.ok(nr.actualCredits > 0);
    assert.equal((await tts.locator('.cost').textContent())?.replace(/\D/g, ''), String(nr.actualCredits), 'the node shows what it was charged');
    assert.equal((await page.locator('.run-total').textContent())?.replace(/\D/g, ''), String(run.actualCredits));
    await shot('editor-run');
  });

  test('run again: served from the node cache, and marked so on the canvas', async () => {
    const first = (await page.locator('.run-status a code').textContent())!;
    await page.click('button:has-text("Start run")');
    await page.waitForFunction((prev) => {
      const id = document.querySelector('.run-status a code')?.textContent;
      return id && id !== prev && document.querySelector('[data-run-status="COMPLETED"]');
    }, first, { timeout: 120_000 });
    await page.waitForSelector('.wf-node[data-type="espeak_tts"][data-cached="true"] .badge.cached');
    const second = (await page.locator('.run-status a code').textContent())!;
    firstRun = first;
    secondRun = second;
  });

  test('the runs list marks the run served from the cache', async () => {
    await page.goto(`${srv.url}/runs`);
    assert.equal(await page.locator(`tr[data-run-id="${secondRun}"] .cached-badge`).textContent(), 'cached');
    assert.equal(await page.locator(`tr[data-run-id="${firstRun}"] .cached-badge`).count(), 0);
  });

  test('the live run page\'s state carries each node\'s cost, adding up to the header\'s', async () => {
    const first = firstRun;
    // The state the live run page polls: each node's cost, so a completed node no longer shows 0 beside the header's total.
    const state = await (await page.request.get(`${srv.url}/runs/${first}/state`)).json();
    const speech = state.nodes.find((n: any) => n.actualCredits > 0);
    assert.ok(speech, 'a completed node carries its cost');
    assert.equal(state.nodes.reduce((sum: number, n: any) => sum + n.actualCredits, 0), state.actualCredits);
  });

  test('system workflow pages name nodes by their models, as user workflows do', async () => {
    await page.goto(`${srv.url}/workflows/sound-scene`);
    const rows = await page.locator('section[aria-labelledby="wf-nodes-title"] tbody th').allTextContents();
    assert.ok(rows.some((t) => t.startsWith('sfxr sound effects')), rows.join(' | '));
    assert.ok(!rows.some((t) => t.startsWith('sfxr_sound_effects')), 'no raw type names as labels');
  });

  test('quick-create then nodes: the Response node stays to the right of the last node', async () => {
    const wf = (await srv.request('POST', '/v1/workflows/quick-create', { key: user.key, body: { name: 'layout' } })).body;
    await srv.request('POST', `/v1/workflows/${wf.id}/nodes`, { key: user.key, body: { nodeType: 'espeak_tts' } });
    const last = (await srv.request('POST', `/v1/workflows/${wf.id}/nodes`, { key: user.key, body: { nodeType: 'waveform_video', column: 2 } })).body;
    const after = (await api(`/v1/workflows/${wf.id}`)).body;
    const response = after.nodes.find((n: any) => n.type === 'response');
    assert.ok(response.position.x > last.position.x, 'right of the last node');
    assert.equal(response.position.y, last.position.y, 'on its row');
  });

  test('the webhook delivery log fits 1280 px: Replay is visible without scrolling sideways', async () => {
    const run = await srv.request('POST', '/v1/nodes/espeak_tts/run', { key: user.key, body: { input: { text: 'hook' }, webhook: { url: `http://127.0.0.1:9/a/rather/long/receiver/path/${'x'.repeat(40)}` } } });
    assert.equal(run.status, 202, JSON.stringify(run.body));
    await page.goto(`${srv.url}/settings/webhooks`);
    for (let i = 0; i < 60 && (await page.locator('tbody tr').count()) === 0; i++) {
      await page.waitForTimeout(500);
      await page.reload();
    }
    const fits = await page.locator('.table-wrap').first().evaluate((wrap) => {
      const button = wrap.querySelector('button')!.getBoundingClientRect();
      const box = wrap.getBoundingClientRect();
      return { right: button.right, limit: box.right, scroll: wrap.scrollWidth - wrap.clientWidth };
    });
    assert.ok(fits.right <= fits.limit, `Replay ends at ${fits.right}px, the log at ${fits.limit}px`);
    await shot('webhooks-1280');
  });

  test('a system workflow opens read-only; "Duplicate to edit" opens an editable copy that saves', async () => {
    await page.goto(`${srv.url}/workflows/sound-scene/edit`);
    await page.locator('.react-flow__node').first().waitFor();
    assert.equal(await page.getAttribute('.editor', 'data-read-only'), 'true');
    assert.equal(await page.locator('#palette-search').count(), 0, 'no palette on a read-only workflow');
    await page.waitForFunction(() => document.querySelector('.estimate')?.getAttribute('data-total') !== '' || document.querySelector('.estimate .error-text'));
    assert.equal(await page.locator('.estimate .error-text').count(), 0, await page.locator('.estimate').textContent() ?? '');
    await shot('editor-system');
    // Keyboard: Tab reaches a node, Enter selects it and the form shows its inputs (read-only here).
    await page.locator('.react-flow__node.react-flow__node-model').first().focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('.inspector .panel-title')?.textContent !== 'Node settings');
    assert.ok(await page.locator('.inspector fieldset.model-inputs').count() === 1);
    await Promise.all([page.waitForURL(/\/workflows\/wf_[0-9A-Za-z]+\/edit$/), page.click('button:has-text("Duplicate to edit")')]);
    const copyId = /\/workflows\/(wf_[0-9A-Za-z]+)\/edit/.exec(page.url())![1]!;
    await page.locator('.react-flow__node').first().waitFor();
    assert.equal(await page.getAttribute('.editor', 'data-read-only'), 'false');
    await page.fill('#wf-name', 'My sound scene');
    await page.locator('.react-flow__node.react-flow__node-model').first().click({ position: { x: 20, y: 12 } });
    await page.fill('#node-label', 'Renamed node');
    await page.click('button:has-text("Save")');
    await page.waitForFunction(() => document.querySelector('.editor-message')?.textContent === 'Saved.');
    const { body } = await api(`/v1/workflows/${copyId}`);
    assert.equal(body.name, 'My sound scene');
    assert.ok(body.nodes.some((n: any) => n.label === 'Renamed node'));
    assert.equal(body.isSystem, false);
  });

  test('a 100-node workflow opens, pans and zooms (frame intervals reported, not asserted)', async (t) => {
    const nodes: any[] = [{ id: 'request', type: 'request', position: { x: 0, y: 0 }, data: { fields: [{ id: 'prompt', name: 'prompt', type: 'text' }] } }];
    const edges: any[] = [];
    for (let i = 0; i < 98; i++) {
      nodes.push({ id: `t${i}`, type: 'text_template', position: { x: 320 * (1 + (i % 10)), y: 240 * Math.floor(i / 10) }, data: { template: `step ${i}: {{ text }}` } });
      edges.push({ source: i === 0 ? 'request' : `t${i - 1}`, sourceHandle: i === 0 ? 'prompt' : 'out:output', target: `t${i}`, targetHandle: 'in:text' });
    }
    nodes.push({ id: 'response', type: 'response', position: { x: 320 * 11, y: 0 }, data: {} });
    edges.push({ source: 't97', sourceHandle: 'out:output', target: 'response', targetHandle: 'result' });
    const created = await srv.request('POST', '/v1/workflows', { key: user.key, body: { name: 'hundred', nodes, edges } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await page.goto(`${srv.url}/workflows/${created.body.id}/edit`);
    await page.locator('.react-flow__node').first().waitFor();
    await page.waitForFunction(() => document.querySelector('.estimate')?.getAttribute('data-total') !== '');
    const pane = (await page.locator('.react-flow__pane').boundingBox())!;
    const transform = () => page.locator('.react-flow__viewport').evaluate((el) => (el as HTMLElement).style.transform);
    const before = await transform();
    // A string, so the test's compiler adds no helpers to code that runs in the page.
    await page.evaluate(`window.frameTimes = []; (function tick(ts) { window.frameTimes.push(ts); if (!window.stopFrames) requestAnimationFrame(tick); })(performance.now());`);
    await page.mouse.move(pane.x + pane.width / 2, pane.y + pane.height / 2);
    await page.mouse.down();
    for (let i = 1; i <= 60; i++) await page.mouse.move(pane.x + pane.width / 2 - i * 4, pane.y + pane.height / 2 - i * 2);
    await page.mouse.up();
    for (let i = 0; i < 10; i++) await page.mouse.wheel(0, i < 5 ? -120 : 120);
    const intervals: number[] = await page.evaluate(`window.stopFrames = true; window.frameTimes.slice(1).map((ts, i) => ts - window.frameTimes[i])`);
    assert.notEqual(await transform(), before, 'the canvas moved');
    assert.ok((await page.locator('.react-flow__node').count()) > 0);
    const sorted = [...intervals].sort((a, b) => a - b);
    const p = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1);
    t.diagnostic(`100 nodes, pan + zoom: ${intervals.length} frames, median ${p(0.5)} ms, p95 ${p(0.95)} ms, longest ${sorted.at(-1)!.toFixed(1)} ms between frames`);
    // Auto-layout moves the nodes (left to right by their wiring); undo puts them back as saved.
    const at = () => page.locator('.react-flow__node[data-id="t50"]').evaluate((el) => (el as HTMLElement).style.transform);
    const saved = await at();
    await page.click('button:has-text("Auto-layout")');
    await page.waitForFunction(() => document.querySelector('.editor')?.getAttribute('data-dirty') === 'true');
    assert.notEqual(await at(), saved);
    await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Control+z');
    await page.waitForFunction(() => document.querySelector('.editor')?.getAttribute('data-dirty') === 'false');
    assert.equal(await at(), saved);
  });

  test('a media input can be uploaded: the form gets a signed URL of the account\'s file', async () => {
    const csrf = JSON.parse((await page.locator('#editor-config').textContent())!).csrfToken;
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    const res = await page.request.post(`${srv.url}/editor/files`, { headers: { 'content-type': 'image/png', 'x-csrf-token': csrf, 'x-file-name': 'dot.png', origin: srv.url }, data: png });
    assert.equal(res.status(), 201, await res.text());
    const { url } = await res.json();
    const file = await fetch(url);
    assert.equal(file.status, 200);
    assert.deepEqual(Buffer.from(await file.arrayBuffer()), png);
    const refused = await page.request.post(`${srv.url}/editor/files`, { headers: { 'content-type': 'image/png', origin: srv.url }, data: png });
    assert.equal(refused.status(), 403, 'no CSRF token, no upload');
    // From the form: a model with an image input, its Upload button, and the URL lands in the field.
    const shotFile = path.join(profile, 'dot.png');
    fs.writeFileSync(shotFile, png);
    await page.goto(`${srv.url}/workflows/new`);
    await page.fill('#palette-search', 'resize');
    await page.locator('.palette-item[data-node-type="resize_image"]').click();
    const input = page.locator('.inspector .field-image input[type="url"]');
    await input.waitFor();
    await page.locator('.inspector .field-image input[type="file"]').setInputFiles(shotFile);
    await page.waitForFunction(() => (document.querySelector('.inspector .field-image input[type="url"]') as HTMLInputElement | null)?.value.startsWith('http'));
    assert.equal((await fetch(await input.inputValue())).status, 200);
  });

  test('forms in the hosted field vocabulary: a string[] image list, sliders and a toggle set values the API keeps', async () => {
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    const dot = path.join(profile, 'dot-list.png');
    fs.writeFileSync(dot, png);
    await page.goto(`${srv.url}/workflows/new`);
    await node('request').waitFor();
    const field = (name: string) => page.locator(`.inspector .form-field[data-field="${name}"]`);

    // composite_images: `image_urls` is an image list (hosted type image, dataType string[]), `opacity` a slider.
    await page.fill('#palette-search', 'composite');
    await page.locator('.palette-item[data-node-type="composite_images"]').click();
    const list = field('image_urls');
    await list.waitFor();
    assert.equal(await list.getAttribute('data-type'), 'image');
    assert.equal(await list.getAttribute('data-data-type'), 'string[]');
    await list.locator('textarea').fill('https://example.com/a.png\nhttps://example.com/b.png');
    await list.locator('input[type="file"]').setInputFiles(dot);
    await page.waitForFunction(() => (document.querySelector('.inspector .form-field[data-field="image_urls"] textarea') as HTMLTextAreaElement | null)?.value.split('\n').length === 3);
    const opacity = field('opacity');
    assert.equal(await opacity.getAttribute('data-type'), 'slider');
    assert.match((await opacity.locator('output').textContent()) ?? '', /1 \(default\)/);
    await opacity.locator('input[type="range"]').fill('0.5');
    await page.waitForFunction(() => document.querySelector('.inspector .form-field[data-field="opacity"] output')?.textContent === '0.5');
    const compositeId = (await node('composite_images').getAttribute('data-node-id'))!;

    // Adjust image: booleans are toggles, bounded numbers sliders.
    await page.fill('#palette-search', 'adjust');
    await page.locator('.palette-item[data-node-type="adjust_image"]').click();
    const gray = field('grayscale');
    await gray.waitFor();
    assert.equal(await gray.getAttribute('data-type'), 'toggle');
    assert.equal(await gray.getAttribute('data-data-type'), 'boolean');
    await gray.locator('input[type="checkbox"]').check();
    assert.equal(await field('hue').getAttribute('data-type'), 'slider');
    await field('hue').locator('input[type="range"]').fill('90');
    const adjustId = (await node('adjust_image').getAttribute('data-node-id'))!;
    await page.fill('#wf-name', 'Hosted fields');
    await page.locator('.react-flow__node').first().waitFor();
    await node('adjust_image').click({ position: { x: 20, y: 12 } });
    await field('grayscale').waitFor();
    if (SHOTS) {
      fs.mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, 'editor-hosted-fields.png') });
    }

    await Promise.all([page.waitForURL(/\/workflows\/wf_[0-9A-Za-z]+\/edit\?saved=1$/), page.click('button:has-text("Create")')]);
    const id = /\/workflows\/(wf_[0-9A-Za-z]+)\/edit/.exec(page.url())![1]!;
    const { body: wf } = await api(`/v1/workflows/${id}`);
    const composite = wf.nodes.find((n: any) => n.id === compositeId);
    assert.equal(composite.data.opacity, 0.5);
    assert.deepEqual(composite.data.image_urls.slice(0, 2), ['https://example.com/a.png', 'https://example.com/b.png']);
    assert.equal(composite.data.image_urls.length, 3);
    assert.equal((await fetch(composite.data.image_urls[2])).status, 200, 'the uploaded file joined the list as a signed URL');
    assert.deepEqual(wf.nodes.find((n: any) => n.id === adjustId).data, { grayscale: true, hue: 90 });
    // The schema the API answers for these fields speaks the same vocabulary.
    const schema = (await api('/v1/models/composite_images/schema')).body;
    assert.deepEqual(schema.fields.filter((f: any) => ['image_urls', 'opacity'].includes(f.name)).map((f: any) => [f.name, f.type, f.dataType]), [['image_urls', 'image', 'string[]'], ['opacity', 'slider', 'number']]);
  });

  test('no script errors and no CSP violations on the editor pages', () => {
    assert.deepEqual(pageErrors, []);
  });
});
