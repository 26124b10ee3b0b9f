import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { createLogger, wantsPrettyLogs } from '../../src/logger.js';
import { maskUrlSecrets } from '../../src/logMasks.js';

// The log format and the masks on logged URLs (issue 16, items 7 and 9).

describe('logs', () => {
  test('human lines on a terminal, JSON otherwise; LOG_FORMAT overrides', () => {
    assert.equal(wantsPrettyLogs({}, true), true);
    assert.equal(wantsPrettyLogs({}, false), false);
    assert.equal(wantsPrettyLogs({ LOG_FORMAT: 'json' }, true), false);
    assert.equal(wantsPrettyLogs({ LOG_FORMAT: 'pretty' }, false), true);
  });

  test('the pretty logger writes one readable line per entry, the JSON one a JSON object', async () => {
    const read = async (pretty: boolean) => {
      const out = new PassThrough();
      let text = '';
      out.on('data', (d) => (text += d));
      const log = createLogger('info', { pretty, destination: out });
      log.info({ method: 'GET', statusCode: 200 }, 'request');
      await new Promise((r) => setTimeout(r, 50));
      return text;
    };
    const human = await read(true);
    assert.match(human, /INFO: request/);
    assert.equal(human.trim().split('\n').length, 1, human);
    assert.throws(() => JSON.parse(human));
    assert.equal(JSON.parse(await read(false)).msg, 'request');
  });

  test('keys and credentials in URLs are masked', () => {
    const key = 'gx_' + 'A'.repeat(40);
    for (const url of [
      `/v1/credits/balance?api_key=${key}`, `/v1/x?key=${key}`, `/v1/x?token=abc`, `/v1/x?foo=${key}`,
      `/v1/x?foo=${encodeURIComponent(key)}`, `/v1/files/${key}`, `/v1/x?a=1&API_KEY=zzz&b=2`, '/v1/files/f?exp=1&sig=secret',
    ]) {
      const masked = maskUrlSecrets(url);
      assert.ok(!masked.includes('A'.repeat(8)), masked);
      assert.ok(!/zzz|secret|abc/.test(masked), masked);
    }
    assert.equal(maskUrlSecrets('/v1/x?a=1&API_KEY=zzz&b=2'), '/v1/x?a=1&API_KEY=…&b=2');
    assert.equal(maskUrlSecrets('/v1/files/f?exp=1&sig=s'), '/v1/files/f?exp=1&sig=…');
    assert.equal(maskUrlSecrets('/v1/models?limit=5'), '/v1/models?limit=5');
  });
});
