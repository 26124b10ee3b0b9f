import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import sharp from 'sharp';
import { BIN, runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The commands for people (`atelier run`, `workflows run`, `models`, `estimate`) run as real child
 * processes against a live server, as a user at a terminal would run them (ATELIER_URL + ATELIER_API_KEY).
 */
let srv: TestServer;
let key: string;
let env: Record<string, string>;
let tmp: string;

before(async () => {
  srv = await startTestServer();
  ({ key } = await srv.user());
  env = { ATELIER_URL: srv.url, ATELIER_API_KEY: key };
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-cli-'));
});
after(async () => {
  await srv?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const cli = (args: string[], extra: Record<string, string> = {}) => runCli(args, { ...env, ...extra });
const isWav = (b: Buffer) => b.subarray(0, 4).toString() === 'RIFF' && b.subarray(8, 12).toString() === 'WAVE';
const isPng = (b: Buffer) => b.subarray(1, 4).toString() === 'PNG';
const isMp4 = (b: Buffer) => b.subarray(4, 8).toString() === 'ftyp';

describe('atelier run', () => {
  test('--out waits, shows each status on stderr, and saves a WAV that is the run\'s file', async () => {
    const dir = path.join(tmp, 'speech');
    const r = await cli(['run', 'espeak_tts', '--input', 'text=Hello from the command line.', '--out', dir]);
    assert.equal(r.code, 0, r.stderr);
    // Not a terminal: one plain line per change, ending with the final status.
    const lines = r.stderr.trim().split('\n');
    assert.match(lines.at(-1)!, /^run_\w+ espeak_tts COMPLETED/);
    assert.ok(lines.every((l) => /^run_\w+ espeak_tts (QUEUED|RUNNING|COMPLETED)/.test(l)), r.stderr);
    const runId = /^(run_\w+) COMPLETED/.exec(r.stdout)?.[1];
    assert.ok(runId, r.stdout);
    const files = fs.readdirSync(dir);
    assert.equal(files.length, 1);
    const saved = fs.readFileSync(path.join(dir, files[0]!));
    assert.ok(isWav(saved) && saved.length > 10_000);
    assert.match(r.stdout, new RegExp(`saved ${dir}/${files[0]}`));
    // The saved bytes are the artifact the API serves for that run.
    const run = (await srv.request('GET', `/v1/nodes/runs/${runId}`, { key })).body;
    assert.equal(run.files[0].bytes, saved.length);
    assert.match(r.stdout, new RegExp(`charged ${run.creditUsed} microcredits`));
  });

  test('without --wait it prints the run id at once; --json gives the created record', async () => {
    const r = await cli(['run', 'word_count', '--input', 'text=one two three', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const created = JSON.parse(r.stdout);
    assert.match(created.runId, /^run_/);
    assert.ok(['QUEUED', 'RUNNING', 'COMPLETED'].includes(created.status));
    assert.equal(typeof created.estimatedCredits, 'number');
    assert.equal(r.stderr, '');
  });

  test('--wait --json prints the finished run; a text result is shown, numbers are coerced by the schema', async () => {
    const r = await cli(['run', 'word_count', '--input', 'text=one two three four', '--wait', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const run = JSON.parse(r.stdout);
    assert.equal(run.status, 'COMPLETED');
    assert.deepEqual(run.savedFiles, []);
    const human = await cli(['run', 'word_count', '--input', 'text=one two three four', '--wait']);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /COMPLETED in [\d.]+s, charged [\d,]+ microcredits/);
  });

  test('@path sends a local file: a poster made by one run is resized by the next', async () => {
    const posterDir = path.join(tmp, 'poster');
    const a = await cli(['run', 'poster_render', '--input', 'text=Atelier', '--input', 'width=400', '--input', 'height=500', '--out', posterDir]);
    assert.equal(a.code, 0, a.stderr);
    const poster = path.join(posterDir, fs.readdirSync(posterDir)[0]!);
    assert.ok(isPng(fs.readFileSync(poster)));
    const outDir = path.join(tmp, 'resized');
    const b = await cli(['run', 'resize_image', '--input', `image_url=@${poster}`, '--input', 'width=100', '--out', outDir, '--json']);
    assert.equal(b.code, 0, b.stderr);
    const run = JSON.parse(b.stdout);
    assert.equal(run.status, 'COMPLETED');
    assert.equal(run.input.width, 100, 'width was sent as a number');
    const png = fs.readFileSync(run.savedFiles[0]);
    assert.ok(isPng(png));
    assert.equal(png.readUInt32BE(16), 100, 'PNG header width');
    assert.equal(png.readUInt32BE(20), 125, 'PNG header height');
  });

  test('a failed run exits 1 with the reason, and nothing is saved', async () => {
    const wav = path.join(tmp, 'not-an-image.wav');
    const speech = fs.readdirSync(path.join(tmp, 'speech'))[0]!;
    fs.copyFileSync(path.join(tmp, 'speech', speech), wav);
    const dir = path.join(tmp, 'failed');
    const r = await cli(['run', 'resize_image', '--input', `image_url=@${wav}`, '--input', 'width=10', '--out', dir]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /FAILED/);
    assert.match(r.stdout, /error: .*must be an image/);
    assert.ok(!fs.existsSync(dir) || fs.readdirSync(dir).length === 0);
  });

  test('mistakes get one clear line and a non-zero exit, before anything is charged', async () => {
    const before = (await srv.request('GET', '/v1/credits', { key })).body.availableBalance;
    const noKey = await runCli(['run', 'word_count', '--input', 'text=x'], { ATELIER_URL: srv.url, ATELIER_API_KEY: '' });
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr, /set ATELIER_API_KEY/);
    const badKey = await cli(['run', 'word_count', '--input', 'text=x'], { ATELIER_API_KEY: 'gx_' + 'a'.repeat(40) });
    assert.equal(badKey.code, 1);
    assert.match(badKey.stderr, /\(UNAUTHORIZED, req_\w+\)/);
    const notNumber = await cli(['run', 'resize_image', '--input', 'image_url=https://example.com/a.png', '--input', 'width=wide']);
    assert.equal(notNumber.code, 2);
    assert.match(notNumber.stderr, /--input width expects a number, got "wide"/);
    const noEquals = await cli(['run', 'word_count', '--input', 'text']);
    assert.equal(noEquals.code, 2);
    assert.match(noEquals.stderr, /--input expects KEY=VALUE/);
    const unknownModel = await cli(['run', 'no_such_model']);
    assert.equal(unknownModel.code, 1);
    assert.match(unknownModel.stderr, /MODEL_NOT_FOUND/);
    const invalid = await cli(['run', 'word_count', '--input', 'colour=red', '--input', 'text=x']);
    assert.equal(invalid.code, 1);
    assert.match(invalid.stderr, /VALIDATION_ERROR/);
    assert.match(invalid.stderr, /colour/);
    const missingFile = await cli(['run', 'resize_image', '--input', 'image_url=@/no/such/file.png']);
    assert.equal(missingFile.code, 2);
    assert.match(missingFile.stderr, /cannot read \/no\/such\/file.png: ENOENT/);
    const badUrl = await cli(['models', 'search', 'x'], { ATELIER_URL: 'not a url' });
    assert.equal(badUrl.code, 2);
    assert.match(badUrl.stderr, /ATELIER_URL "not a url" is not a URL/);
    assert.equal((await srv.request('GET', '/v1/credits', { key })).body.availableBalance, before);
  });
});

describe('Ctrl-C while waiting', () => {
  test('cancels the run, waits for it to settle, refunds it and exits 1', async () => {
    const png = path.join(tmp, 'blue.png');
    await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 40, g: 90, b: 160 } } }).png().toFile(png);
    const before = (await srv.request('GET', '/v1/credits', { key })).body.availableBalance;
    // A 60 s 1080p Ken Burns video: many seconds of real ffmpeg work, so the run is caught RUNNING.
    const child = spawn(process.execPath, [BIN, 'run', 'ken_burns_video', '--input', `image_url=@${png}`, '--input', 'duration=60',
      '--input', 'width=1920', '--input', 'height=1080', '--input', 'fps=60', '--wait'], { env: { ...process.env, ...env, LOG_LEVEL: 'silent' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    const running = new Promise<void>((resolve) => child.stderr.on('data', (d) => {
      stderr += d;
      if (/ RUNNING/.test(stderr)) resolve();
    }));
    const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
    await running;
    child.kill('SIGINT');
    assert.equal(await exited, 1, stdout + stderr);
    assert.match(stderr, /canceling run_\w+/);
    assert.match(stdout, /^run_\w+ CANCELED/m);
    const runId = /^(run_\w+) CANCELED/m.exec(stdout)![1];
    const run = (await srv.request('GET', `/v1/nodes/runs/${runId}`, { key })).body;
    assert.equal(run.status, 'CANCELED');
    assert.equal(run.creditUsed, 0);
    assert.equal((await srv.request('GET', '/v1/credits', { key })).body.availableBalance, before);
  });
});

describe('atelier workflows', () => {
  test('run by slug shows each node\'s status as it changes and saves the WAV and the MP4', async () => {
    const dir = path.join(tmp, 'wf');
    const r = await cli(['workflows', 'run', 'narrated-waveform', '--value', 'text=A waveform that speaks.', '--out', dir]);
    assert.equal(r.code, 0, r.stderr);
    for (const node of ['speech (espeak_tts)', 'video (waveform_video)']) {
      const seen = r.stderr.split('\n').filter((l) => l.startsWith(`  ${node}`)).map((l) => l.slice(node.length + 3).split(' ')[0]);
      assert.equal(seen.at(-1), 'COMPLETED', r.stderr);
      assert.deepEqual([...new Set(seen)], seen, 'each status shown once');
    }
    const files = fs.readdirSync(dir).sort();
    assert.equal(files.length, 2, files.join());
    const mp4 = files.find((f) => f.endsWith('.mp4'))!;
    const wav = files.find((f) => f.endsWith('.wav'))!;
    assert.ok(isMp4(fs.readFileSync(path.join(dir, mp4))));
    assert.ok(isWav(fs.readFileSync(path.join(dir, wav))));
    assert.match(r.stdout, /COMPLETED in [\d.]+s, charged [\d,]+ microcredits/);
  });

  test('--value node.field addresses the Request node; a wrong node or field is refused', async () => {
    const wf = (await srv.request('GET', '/v1/workflows/narrated-waveform', { key })).body;
    const ok = await cli(['workflows', 'run', 'narrated-waveform', '--value', `${wf.requestNodeId}.text=Hi.`, '--wait', '--json']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(JSON.parse(ok.stdout).status, 'COMPLETED');
    const wrongNode = await cli(['workflows', 'run', 'narrated-waveform', '--value', 'speech.text=Hi.']);
    assert.equal(wrongNode.code, 2);
    assert.match(wrongNode.stderr, /"speech" is not the Request node/);
    const wrongField = await cli(['workflows', 'run', 'narrated-waveform', '--value', 'colour=red']);
    assert.equal(wrongField.code, 1);
    assert.match(wrongField.stderr, /is not a field of the Request node/);
  });

  test('list shows the system workflows', async () => {
    const r = await cli(['workflows', 'list']);
    assert.equal(r.code, 0, r.stderr);
    for (const slug of ['narrated-waveform', 'poster-to-video', 'sound-scene', 'read-an-image', 'talking-portrait']) assert.match(r.stdout, new RegExp(`^${slug}\\s+system`, 'm'));
  });
});

describe('atelier models and estimate', () => {
  test('models search: readable lines, and --json equals the REST search', async () => {
    for (const q of ['speech', 'upscale image', 'zzqqxx-nothing']) {
      const human = await cli(['models', 'search', ...q.split(' ')]);
      assert.equal(human.code, 0, human.stderr);
      const json = await cli(['models', 'search', q, '--json']);
      const rest = (await srv.request('GET', `/v1/models/search?query=${encodeURIComponent(q)}`, { key })).body;
      assert.deepEqual(JSON.parse(json.stdout), rest);
      if (rest.noMatch) assert.match(human.stdout, /\S/);
      for (const entry of Object.values(rest.modelCatalog ?? {}).flat() as Array<{ modelId: string }>) {
        assert.match(human.stdout, new RegExp(`^  ${entry.modelId} `, 'm'));
      }
    }
  });

  test('models pricing says the rule in words with worked examples', async () => {
    const r = await cli(['models', 'pricing', 'espeak_tts']);
    assert.equal(r.code, 0, r.stderr);
    const rest = (await srv.request('GET', '/v1/models/espeak_tts/pricing', { key })).body;
    assert.equal(r.stdout.split('\n')[0], `espeak_tts: ${rest.summary}`);
    assert.match(r.stdout, /^\s+2,000 microcredits {2}for \{/m);
  });

  test('models schema lists the inputs', async () => {
    const r = await cli(['models', 'schema', 'resize_image']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^\s+image_url\s+image\s+required/m);
    assert.match(r.stdout, /^\s+fit\s+select\s+one of inside, cover/m);
  });

  test('estimate equals the API estimate, for a node and for a workflow', async () => {
    const text = 'x'.repeat(2500);
    const node = await cli(['estimate', 'espeak_tts', '--input', `text=${text}`, '--json']);
    assert.equal(node.code, 0, node.stderr);
    const rest = (await srv.request('POST', '/v1/nodes/estimate-credits', { key, body: { nodeType: 'espeak_tts', data: { text } } })).body;
    assert.deepEqual(JSON.parse(node.stdout), rest);
    const human = await cli(['estimate', 'espeak_tts', '--input', `text=${text}`]);
    assert.equal(human.stdout.trim(), `espeak_tts: ${rest.totalMicrocredits.toLocaleString('en-US')} microcredits`);

    const wf = await cli(['estimate', '--workflow', 'narrated-waveform', '--json']);
    assert.equal(wf.code, 0, wf.stderr);
    const graph = (await srv.request('GET', '/v1/workflows/narrated-waveform', { key })).body;
    const restWf = (await srv.request('POST', '/v1/workflows/estimate-credits', {
      key, body: { nodes: graph.nodes.map((n: any) => ({ type: n.type, subModelId: n.subModelId, data: n.data })) },
    })).body;
    assert.deepEqual(JSON.parse(wf.stdout), restWf);
    assert.ok(restWf.totalMicrocredits > 0);
  });
});

// Issue 16, item 14.
describe('retries', () => {
  test('a model whose provider is not configured (503 MODEL_UNAVAILABLE) is asked once, not retried', async () => {
    // A counting pass-through proxy in front of the real server.
    const http = await import('node:http');
    let runPosts = 0;
    const target = new URL(srv.url);
    const proxy = http.createServer((req, res) => {
      if (req.method === 'POST' && req.url?.startsWith('/v1/nodes/flux_2_pro/run')) runPosts++;
      const up = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      });
      up.on('error', () => res.destroy());
      req.pipe(up);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const port = (proxy.address() as import('node:net').AddressInfo).port;
      const r = await cli(['run', 'flux_2_pro', '--input', 'prompt=a lighthouse'], { ATELIER_URL: `http://127.0.0.1:${port}` });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /MODEL_UNAVAILABLE|cannot run on this server/);
      assert.equal(runPosts, 1, 'the run was asked for once');
    } finally {
      proxy.close();
    }
  });
});
