import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { html, jsonScript, raw } from '../../../src/web/html.js';
import { parseCookies, serializeCookie } from '../../../src/web/cookies.js';
import { originAllowed, safeNextPath, tokensEqual } from '../../../src/web/csrf.js';
import { formatDuration, formatMicrocredits, formatTime, parseDateInput, parseIntField } from '../../../src/web/views/format.js';
import { graphElements, nodeLabel, nodeStates } from '../../../src/web/graphElements.js';
import type { Graph } from '../../../src/workflows/types.js';

describe('html template', () => {
  test('escapes every interpolated value, in text and in attributes', () => {
    const label = `"><script>alert('x')</script>&`;
    assert.equal(html`<p title="${label}">${label}</p>`.text,
      '<p title="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;">&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;</p>');
  });

  test('nests templates, joins arrays, and renders null, undefined and false as nothing', () => {
    const items = ['a<b', 'c'];
    assert.equal(html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>${null}${undefined}${false}${0}`.text, '<ul><li>a&lt;b</li><li>c</li></ul>0');
    assert.equal(html`${raw('<b>trusted</b>')}`.text, '<b>trusted</b>');
  });

  test('JSON in a script element cannot close the element', () => {
    const s = jsonScript('d', { label: '</script><script>alert(1)</script>' }).text;
    assert.ok(!s.slice(0, -'</script>'.length).includes('</script>'));
    const body = s.slice(s.indexOf('>') + 1, -'</script>'.length);
    assert.deepEqual(JSON.parse(body), { label: '</script><script>alert(1)</script>' });
  });
});

describe('cookies', () => {
  test('parses the Cookie header (first occurrence wins, values decoded)', () => {
    assert.deepEqual(parseCookies('a=1; b=x%20y; a=2; bad; c="q"'), { a: '1', b: 'x y', c: 'q' });
    assert.deepEqual(parseCookies(undefined), {});
  });

  test('writes HttpOnly, SameSite=Lax, Path=/ always, Secure and Max-Age on request, and deletion with Max-Age=0', () => {
    assert.equal(serializeCookie('s', 'v', { secure: false, maxAge: 60 }), 's=v; Path=/; SameSite=Lax; HttpOnly; Max-Age=60');
    assert.equal(serializeCookie('s', 'v', { secure: true }), 's=v; Path=/; SameSite=Lax; HttpOnly; Secure');
    assert.match(serializeCookie('s', '', { secure: false, maxAge: 0 }), /Max-Age=0; Expires=Thu, 01 Jan 1970/);
    assert.throws(() => serializeCookie('a;b', 'v', { secure: false }));
  });
});

describe('CSRF helpers', () => {
  test('tokens compare exactly', () => {
    assert.equal(tokensEqual('abc', 'abc'), true);
    assert.equal(tokensEqual('abc', 'abd'), false);
    assert.equal(tokensEqual('abc', 'ab'), false);
    assert.equal(tokensEqual('abc', undefined), false);
    assert.equal(tokensEqual('abc', ''), false);
  });

  test('an Origin must be this site (its Host) or PUBLIC_URL; no Origin is left to the token check', () => {
    const own = { protocol: 'http', host: '127.0.0.1:8080' };
    assert.equal(originAllowed('http://127.0.0.1:8080', own, undefined), true);
    assert.equal(originAllowed('http://127.0.0.1:8081', own, undefined), false);
    assert.equal(originAllowed('https://127.0.0.1:8080', own, undefined), false);
    assert.equal(originAllowed('null', own, undefined), false);
    assert.equal(originAllowed('https://atelier.example', own, 'https://atelier.example/base'), true);
    assert.equal(originAllowed(undefined, own, undefined), true);
  });

  test('only local paths are followed after sign-in', () => {
    assert.equal(safeNextPath('/credits?x=1'), '/credits?x=1');
    for (const bad of ['//evil.example', '/\\evil.example', 'https://evil.example', 'javascript:alert(1)', '/login', '/x\r\nSet-Cookie: a=b', undefined, 3]) {
      assert.equal(safeNextPath(bad), '/runs', String(bad));
    }
  });
});

describe('formats', () => {
  test('times in UTC, durations, microcredits', () => {
    assert.equal(String(formatTime(new Date('2025-01-02T03:04:59Z'))), '<time datetime="2025-01-02T03:04:59.000Z">2025-01-02 03:04 UTC</time>');
    assert.equal(formatTime(null), '—');
    assert.equal(formatDuration('2025-01-01T00:00:00Z', '2025-01-01T00:00:01.449Z'), '1.4 s');
    assert.equal(formatDuration('2025-01-01T00:00:00Z', '2025-01-01T00:00:42Z'), '42 s');
    assert.equal(formatDuration('2025-01-01T00:00:00Z', '2025-01-01T00:03:05Z'), '3 min 05 s');
    assert.equal(formatDuration('2025-01-01T00:00:00Z', '2025-01-01T01:02:00Z'), '1 h 02 min');
    assert.equal(formatDuration(null, null), '—');
    assert.equal(formatMicrocredits(26_170_000n), '26,170,000');
    assert.equal(formatMicrocredits(-3000), '−3,000');
  });

  test('form fields: dates as UTC midnight, whole numbers, empty as absent', () => {
    assert.equal(parseDateInput('2030-02-28')!.toISOString(), '2030-02-28T00:00:00.000Z');
    assert.equal(parseDateInput('2030-02-30'), null);
    assert.equal(parseDateInput('tomorrow'), null);
    assert.equal(parseDateInput(''), undefined);
    assert.equal(parseIntField('42'), 42);
    assert.equal(parseIntField(''), undefined);
    assert.ok(Number.isNaN(parseIntField('4.5')));
    assert.ok(Number.isNaN(parseIntField('1e3')));
  });
});

describe('graph elements', () => {
  const graph: Graph = {
    nodes: [
      { id: 'req', type: 'request', subModelId: null, label: 'Request', position: { x: 80, y: 80 }, data: {} },
      { id: 'a', type: 'espeak_tts', subModelId: null, label: null, position: { x: 440, y: 80 }, data: {} },
      { id: 'b', type: 'waveform_video', subModelId: null, label: 'Video', position: { x: 800, y: 80 }, data: {} },
      { id: 'res', type: 'response', subModelId: null, label: 'Response', position: { x: 1160, y: 80 }, data: {} },
    ],
    edges: [{ id: 'e1', source: 'a', sourceHandle: 'out:result', target: 'b', targetHandle: 'in:audio_url' }],
  };

  test('a workflow without a run: stored positions, labels, port-labelled edges, no status', () => {
    const g = graphElements(graph);
    assert.deepEqual(g.nodes.map((n) => [n.id, n.label, n.x, n.status]), [['req', 'Request', 80, null], ['a', 'espeak_tts', 440, null], ['b', 'Video', 800, null], ['res', 'Response', 1160, null]]);
    assert.deepEqual(g.edges, [{ id: 'e1', source: 'a', target: 'b', label: 'result → audio_url' }]);
  });

  test('a run: node runs give model nodes their status and cache flag; Request and Response follow the run', () => {
    const running = nodeStates(graph, 'RUNNING', [{ nodeId: 'a', status: 'COMPLETED', cached: true, chargedMicrocredits: 200n }, { nodeId: 'b', status: 'RUNNING', cached: false }]);
    assert.deepEqual(running, [
      { id: 'req', status: 'COMPLETED', cached: false, actualCredits: 0 }, { id: 'a', status: 'COMPLETED', cached: true, actualCredits: 200 },
      { id: 'b', status: 'RUNNING', cached: false, actualCredits: 0 }, { id: 'res', status: 'PENDING', cached: false, actualCredits: 0 },
    ]);
    assert.deepEqual(nodeStates(graph, 'QUEUED', []).map((s) => s.status), ['QUEUED', 'PENDING', 'PENDING', 'PENDING']);
    assert.deepEqual(nodeStates(graph, 'FAILED', [{ nodeId: 'a', status: 'FAILED', cached: false }, { nodeId: 'b', status: 'SKIPPED', cached: false }]).map((s) => s.status), ['COMPLETED', 'FAILED', 'SKIPPED', 'FAILED']);
    const g = graphElements(graph, { status: 'COMPLETED', nodeRuns: [{ nodeId: 'a', status: 'COMPLETED', cached: true }, { nodeId: 'b', status: 'COMPLETED', cached: false }] });
    assert.deepEqual(g.nodes.map((n) => `${n.id}:${n.status}:${n.cached}`), ['req:COMPLETED:false', 'a:COMPLETED:true', 'b:COMPLETED:false', 'res:COMPLETED:false']);
  });

  test('nodes without a label are named by their model, as system workflows store them', () => {
    const names = (t: string) => (t === 'espeak_tts' ? 'eSpeak NG' : undefined);
    assert.equal(nodeLabel({ type: 'espeak_tts', label: null }, names), 'eSpeak NG');
    assert.equal(nodeLabel({ type: 'espeak_tts', label: 'Narrator' }, names), 'Narrator');
    assert.equal(nodeLabel({ type: 'response', label: null }, names), 'Response');
    assert.equal(nodeLabel({ type: 'gone_model', label: null }, names), 'gone_model');
  });
});
