import assert from 'node:assert/strict';
import { test } from 'node:test';
import { models } from '../../../../../src/catalog/models/localText.js';
import { textEngines } from '../../../../../src/engines/local/text/index.js';
import { joinTextEngine } from '../../../../../src/engines/local/text/join.js';
import { jsonExtractEngine } from '../../../../../src/engines/local/text/jsonExtract.js';
import { markdownEngine } from '../../../../../src/engines/local/text/markdown.js';
import { splitTextEngine } from '../../../../../src/engines/local/text/split.js';
import { textTemplateEngine } from '../../../../../src/engines/local/text/template.js';
import { wordCountEngine } from '../../../../../src/engines/local/text/wordCount.js';
import { EngineInputError, type Engine, type EngineOutputs } from '../../../../../src/engines/types.js';
import { testContext } from '../../../../helpers/engineContext.js';
import { assertCatalogMatchesEngines } from '../../../../engines/audio/catalogCheck.js';

async function run(engine: Engine, input: Record<string, unknown>): Promise<EngineOutputs> {
  const { ctx, cleanup } = testContext();
  try {
    return await engine.execute({ nodeType: 'x', subModelId: 'x', input, options: {} }, ctx);
  } finally {
    cleanup();
  }
}
const text = (out: EngineOutputs, name = 'output') => (out[name] as { kind: 'text'; text: string }).text;
const texts = (out: EngineOutputs) => (out.output as Array<{ text: string }>).map((t) => t.text);
const num = (out: EngineOutputs, name: string) => (out[name] as { value: number }).value;

test('text catalog entries bind the text engines', async () => {
  assertCatalogMatchesEngines(models, textEngines);
  assert.deepEqual(models.map((m) => m.nodeType), ['text_template', 'json_extract', 'split_text', 'join_text', 'markdown_to_html', 'word_count']);
  for (const e of textEngines) assert.deepEqual(await e.availability(), { available: true });
});

test('text_template fills ports, variables, nested paths and filters', async () => {
  const out = await run(textTemplateEngine, {
    template: 'Dear {{ user.name | upper }}, {{text}} ({{ text_2 | trim | length }} chars) {{ tags[1] }} {{missing}}!',
    text: 'welcome', text_2: '  abc ', variables: { user: { name: 'Ada' }, tags: ['x', 'y'] }, on_missing: 'empty',
  });
  assert.equal(text(out), 'Dear ADA, welcome (3 chars) y !');
  assert.equal(text(await run(textTemplateEngine, { template: 'a {{nope}} b', on_missing: 'keep' })), 'a {{nope}} b');
  assert.equal(text(await run(textTemplateEngine, { template: '{{ v }}', variables: '{"v": {"k": 1}}' })), '{"k":1}');
  await assert.rejects(run(textTemplateEngine, { template: '{{nope}}', on_missing: 'error' }), EngineInputError);
  await assert.rejects(run(textTemplateEngine, { template: '{{ text | shout }}', text: 'x' }), EngineInputError);
  await assert.rejects(run(textTemplateEngine, { template: 'x', variables: [1, 2] }), EngineInputError);
});

test('json_extract follows paths, wildcards and negative indexes, and reads JSON text and fenced JSON', async () => {
  const doc = { items: [{ name: 'a', n: 1 }, { name: 'b', n: 2 }], 'odd key': { ok: true } };
  let out = await run(jsonExtractEngine, { json: doc, path: '$.items[0].name' });
  assert.equal(text(out), 'a');
  assert.deepEqual(out.value, { kind: 'json', value: 'a' });
  assert.equal(text(await run(jsonExtractEngine, { json: JSON.stringify(doc), path: 'items.1.n' })), '2');
  assert.equal(text(await run(jsonExtractEngine, { json: doc, path: 'items[-1].name' })), 'b');
  assert.equal(text(await run(jsonExtractEngine, { json: doc, path: '$["odd key"]' })), '{"ok":true}');
  out = await run(jsonExtractEngine, { json: '```json\n' + JSON.stringify(doc) + '\n```', path: '$.items[*].name' });
  assert.equal(text(out), 'a\nb');
  assert.deepEqual(out.value, { kind: 'json', value: ['a', 'b'] });
  assert.equal(text(await run(jsonExtractEngine, { json: doc, path: '$.nope', on_missing: 'empty' })), '');
  await assert.rejects(run(jsonExtractEngine, { json: doc, path: '$.nope', on_missing: 'error' }), EngineInputError);
  await assert.rejects(run(jsonExtractEngine, { json: '{not json', path: '$' }), EngineInputError);
  await assert.rejects(run(jsonExtractEngine, { json: doc, path: '$.items[' }), EngineInputError);
});

test('split_text splits by lines, paragraphs, sentences, words, separator and chunks', async () => {
  const input = 'Dr. Smith arrived. He said "hi!" Then left.\n\n  Second para line one\nline two  \n';
  assert.deepEqual(texts(await run(splitTextEngine, { text: input, mode: 'lines' })), ['Dr. Smith arrived. He said "hi!" Then left.', 'Second para line one', 'line two']);
  assert.deepEqual(texts(await run(splitTextEngine, { text: input, mode: 'paragraphs' })), ['Dr. Smith arrived. He said "hi!" Then left.', 'Second para line one\nline two']);
  const sentences = texts(await run(splitTextEngine, { text: 'It works. Does it? Yes! 日本語です。次の文。', mode: 'sentences' }));
  assert.deepEqual(sentences, ['It works.', 'Does it?', 'Yes!', '日本語です。', '次の文。']);
  const words = await run(splitTextEngine, { text: "Don't stop, it's 3.5 o'clock", mode: 'words' });
  assert.deepEqual(texts(words), ["Don't", 'stop', "it's", '3.5', "o'clock"]);
  assert.deepEqual(words.count, { kind: 'number', value: 5 });
  assert.deepEqual(texts(await run(splitTextEngine, { text: 'a;b;;c', mode: 'separator', separator: ';' })), ['a', 'b', 'c']);
  assert.deepEqual(texts(await run(splitTextEngine, { text: 'a;b;;c', mode: 'separator', separator: ';', remove_empty: false })), ['a', 'b', '', 'c']);
  assert.deepEqual(texts(await run(splitTextEngine, { text: 'a\tb', mode: 'separator', separator: '\\t' })), ['a', 'b']);
  const chunks = texts(await run(splitTextEngine, { text: 'aaaa bbbb cccc dddd', mode: 'chunks', chunk_size: 10, trim: true }));
  assert.deepEqual(chunks, ['aaaa bbbb', 'cccc dddd']);
  await assert.rejects(run(splitTextEngine, { text: 'a b c', mode: 'words', max_items: 2 }), EngineInputError);
});

test('join_text joins lists (or JSON text of one) with separators and item affixes', async () => {
  assert.equal(text(await run(joinTextEngine, { texts: ['a', 'b', '', 'c'], separator: '\\n', item_prefix: '- ' })), '- a\n- b\n- c');
  assert.equal(text(await run(joinTextEngine, { texts: '["x", 2, true]', separator: ', ' })), 'x, 2, true');
  assert.equal(text(await run(joinTextEngine, { texts: ['a', '', 'b'], separator: '|', skip_empty: false })), 'a||b');
  assert.equal(text(await run(joinTextEngine, { texts: 'just one' })), 'just one');
  await assert.rejects(run(joinTextEngine, { texts: [] }), EngineInputError);
});

test('markdown_to_html renders the common subset and neutralises HTML and script links', async () => {
  const md = [
    '# Title *x*', '', 'Some **bold**, _em_, snake_case, `a<b`, ~~old~~ and [a link](https://example.com).',
    '<script>alert(1)</script> [bad](javascript:alert) ![img](pic.png)', '',
    '- one', '- two', '  - nested', '- [ ] todo', '', '3. c', '4. d', '', '> quote', '', '```js', 'if (a < b) {}', '```', '',
    '| h1 | h2 |', '|---|:-:|', '| 1 | 2 |', '', '***',
  ].join('\n');
  const html = text(await run(markdownEngine, { text: md }));
  // markdown-it's rendering (CommonMark): raw HTML escaped, a javascript: link left as text.
  const expected = [
    '<h1>Title <em>x</em></h1>',
    '<p>Some <strong>bold</strong>, <em>em</em>, snake_case, <code>a&lt;b</code>, <s>old</s> and <a href="https://example.com">a link</a>.',
    '&lt;script&gt;alert(1)&lt;/script&gt; [bad](javascript:alert) <img src="pic.png" alt="img" /></p>',
    '<ul>', '<li>one</li>', '<li>two', '<ul>', '<li>nested</li>', '</ul>', '</li>', '<li><input type="checkbox" disabled /> todo</li>', '</ul>',
    '<ol start="3">', '<li>c</li>', '<li>d</li>', '</ol>',
    '<blockquote>', '<p>quote</p>', '</blockquote>',
    '<pre><code class="language-js">if (a &lt; b) {}', '</code></pre>',
    '<table>', '<thead>', '<tr>', '<th>h1</th>', '<th style="text-align:center">h2</th>', '</tr>', '</thead>', '<tbody>',
    '<tr>', '<td>1</td>', '<td style="text-align:center">2</td>', '</tr>', '</tbody>', '</table>',
    '<hr />',
  ].join('\n');
  assert.equal(html, expected);
  const doc = text(await run(markdownEngine, { text: 'hi', full_document: true, title: 'A & B' }));
  assert.match(doc, /^<!doctype html>[\s\S]*<title>A &amp; B<\/title>[\s\S]*<p>hi<\/p>/);
});

test('markdown_to_html lets no javascript: URL through, however disguised', async () => {
  const disguised = ['\u0001javascript:alert(1)', ' javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'java\tscript:alert(1)', 'java&#x09;script:alert(1)',
    '&#106;avascript:alert(1)', 'javascript&colon;alert(1)', 'vbscript:x', 'data:text/html,<script>alert(1)</script>'];
  for (const url of disguised) {
    for (const md of [`[x](${url})`, `![x](${url})`, `<${url}>`, `[x][r]\n\n[r]: ${url}`, `<a href="${url}">x</a>`]) {
      const html = text(await run(markdownEngine, { text: md }));
      assert.doesNotMatch(html, /<a [^>]*href="[^"]*(javascript|vbscript|data):/i, `${JSON.stringify(md)} → ${html}`);
      assert.doesNotMatch(html, /<img [^>]*src="[^"]*(javascript|vbscript|data):/i, `${JSON.stringify(md)} → ${html}`);
      assert.doesNotMatch(html, /<(script|iframe|object)/i);
    }
  }
});

// The input: 199,395 characters of growing backtick runs, 24.6 s on the old hand-written parser.
test('markdown_to_html renders growing backtick runs (quadratic for a naive parser) within a generous limit', { timeout: 60_000 }, async () => {
  let md = '';
  for (let k = 1; k <= 630; k++) md += '`'.repeat(k) + 'a';
  const html = text(await run(markdownEngine, { text: md }));
  assert.ok(html.startsWith('<p>'));
});

test('json_extract finds a fenced JSON block inside surrounding prose', async () => {
  const answer = 'Sure! Here is the data you asked for:\n\n```json\n{"items": [{"name": "a"}, {"name": "b"}]}\n```\n\nLet me know if you need more.';
  assert.equal(text(await run(jsonExtractEngine, { json: answer, path: '$.items[1].name' })), 'b');
  // A block marked json wins over an earlier unmarked one that is not JSON.
  const two = 'Code:\n```\nnot json\n```\nData:\n~~~JSON\n[1, 2, 3]\n~~~\n';
  assert.equal(text(await run(jsonExtractEngine, { json: two, path: '$[2]' })), '3');
  await assert.rejects(run(jsonExtractEngine, { json: 'no json here, only prose', path: '$' }), EngineInputError);
  await assert.rejects(run(jsonExtractEngine, { json: 'prose\n```json\n{broken\n```', path: '$' }), /no fenced block in it is either/);
});

test('word_count counts by Unicode rules', async () => {
  const out = await run(wordCountEngine, { text: 'Hello, world! It’s 2024.\n\nSecond paragraph here. Café ☕' });
  assert.equal(num(out, 'words'), 8);
  assert.equal(num(out, 'sentences'), 4);
  assert.equal(num(out, 'paragraphs'), 2);
  assert.equal(num(out, 'lines'), 3);
  assert.equal(num(out, 'characters'), 55);
  assert.equal(num(out, 'characters_no_spaces'), 46);
  assert.equal(text(out), '8 words, 55 characters, 4 sentences, 2 paragraphs');
  const empty = await run(wordCountEngine, { text: '' });
  assert.equal(num(empty, 'words'), 0);
});

// A generous time limit instead of a timing assertion: a quadratic pass over 260 kB would take many minutes.
test('long texts are segmented in pieces and counted exactly as one whole pass would', { timeout: 120_000 }, async () => {
  const sample = 'Café ☕ costs 3.50 € — “Really?” she asked. Yes!\nNew line 日本語の文です。 Next sentence here. ';
  // Up to a few kB V8 segments the whole string quickly, so it is the reference for the pieced pass.
  const reference = sample.repeat(40);
  const whole = (g: 'grapheme' | 'word' | 'sentence') => [...new Intl.Segmenter(undefined, { granularity: g }).segment(reference)];
  const stats = num(await run(wordCountEngine, { text: reference }), 'words');
  assert.equal(stats, whole('word').filter((s) => s.isWordLike).length);
  const chars = num(await run(wordCountEngine, { text: reference }), 'characters');
  assert.equal(chars, whole('grapheme').length);
  const oneLine = reference.replace(/\n/g, ' ');
  const sentences = texts(await run(splitTextEngine, { text: oneLine, mode: 'sentences', max_items: 10_000 }));
  assert.deepEqual(sentences, [...new Intl.Segmenter(undefined, { granularity: 'sentence' }).segment(oneLine)].map((s) => s.segment.trim()).filter(Boolean));

  const big = sample.repeat(3000); // ~260 kB: a single Intl.Segmenter pass would take minutes
  const out = await run(wordCountEngine, { text: big });
  assert.equal(num(out, 'words'), stats / 40 * 3000);
  const split = await run(splitTextEngine, { text: big.replace(/\n/g, ' '), mode: 'words', max_items: 10_000_000 });
  assert.equal(num(split, 'count'), stats / 40 * 3000);
});

// Backtracking blow-ups on these inputs take minutes; the time limit catches one without asserting a duration.
test('markdown_to_html finishes on pathological input (unclosed brackets, backticks, emphasis)', { timeout: 120_000 }, async () => {
  for (const unit of ['[a ', '`a ', '**a *b ', '[x](http://a ', '_a ']) {
    const out = await run(markdownEngine, { text: unit.repeat(40_000) });
    assert.ok(out, `"${unit}" × 40000 rendered`);
  }
});
