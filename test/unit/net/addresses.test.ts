import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyAddress, parseIPv4, parseIPv6 } from '../../../src/net/addresses.js';

const cases: Array<[string, string]> = [
  // IPv4 special ranges, both edges of each where it matters
  ['0.0.0.0', 'unspecified'],
  ['0.255.255.255', 'unspecified'],
  ['10.0.0.0', 'private'],
  ['10.255.255.255', 'private'],
  ['100.63.255.255', 'public'],
  ['100.64.0.0', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  ['100.128.0.0', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['169.254.169.254', 'link-local'],
  ['172.15.255.255', 'public'],
  ['172.16.0.0', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.0', 'public'],
  ['192.0.0.8', 'reserved'],
  ['192.0.2.10', 'documentation'],
  ['192.88.99.1', 'reserved'],
  ['192.167.255.255', 'public'],
  ['192.168.0.1', 'private'],
  ['192.169.0.0', 'public'],
  ['198.17.255.255', 'public'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['198.20.0.0', 'public'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  ['223.255.255.255', 'public'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['8.8.8.8', 'public'],
  ['1.1.1.1', 'public'],
  ['93.184.216.34', 'public'],
  // IPv6
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf:ffff::1', 'link-local'],
  ['fec0::1', 'site-local'],
  ['fc00::1', 'unique-local'],
  ['fd12:3456:789a::1', 'unique-local'],
  ['ff02::1', 'multicast'],
  ['ff05::1:3', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['100::1', 'reserved'],
  ['2001::1', 'reserved'], // Teredo
  ['2001:4860:4860::8888', 'public'],
  ['2606:4700:4700::1111', 'public'],
  ['2a00:1450:4001:80b::200e', 'public'],
  ['4000::1', 'reserved'], // outside global unicast 2000::/3
  ['[::1]', 'loopback'],
];

// IPv6 forms that embed an IPv4 address take the class of that address.
const embedded: Array<[string, string]> = [
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::FFFF:10.1.2.3', 'private'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['::ffff:100.64.1.1', 'cgnat'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['::ffff:224.0.0.1', 'multicast'],
  ['::ffff:0:192.168.1.1', 'private'], // IPv4-translated
  ['::127.0.0.1', 'loopback'], // IPv4-compatible (deprecated)
  ['::10.0.0.1', 'private'],
  ['64:ff9b::10.0.0.1', 'private'], // NAT64
  ['64:ff9b::7f00:1', 'loopback'],
  ['2002:7f00:1::', 'loopback'], // 6to4 of 127.0.0.1
  ['2002:c0a8:0101::1', 'private'], // 6to4 of 192.168.1.1
  ['::ffff:8.8.8.8', 'public'],
  ['64:ff9b::8.8.8.8', 'public'],
  ['2002:0808:0808::1', 'public'],
];

test('classifies IPv4 and IPv6 special-purpose ranges', () => {
  for (const [addr, cls] of cases) {
    const v = classifyAddress(addr);
    assert.equal(v.class, cls, `${addr} should be ${cls}, got ${v.class}`);
    assert.equal(v.blocked, cls !== 'public', `${addr} blocked`);
  }
});

test('IPv6 forms that embed an IPv4 address are judged by that address', () => {
  for (const [addr, cls] of embedded) {
    const v = classifyAddress(addr);
    assert.equal(v.class, cls, `${addr} should be ${cls}, got ${v.class}`);
    if (cls !== 'public') assert.match(v.reason!, /embeds/);
  }
});

test('reasons name the address and what it is', () => {
  assert.equal(classifyAddress('127.0.0.1').reason, '127.0.0.1 is a loopback address');
  assert.equal(classifyAddress('10.0.0.1').reason, '10.0.0.1 is a private-network address');
  assert.match(classifyAddress('::ffff:169.254.169.254').reason!, /embeds 169\.254\.169\.254, a link-local address/);
  assert.equal(classifyAddress('8.8.8.8').reason, undefined);
});

test('garbage and non-canonical forms are invalid (and so blocked)', () => {
  for (const s of ['', 'localhost', '256.1.1.1', '1.2.3', '1.2.3.4.5', '01.2.3.4x', '0x7f.0.0.1', ':::1', '1::2::3', 'gggg::1', '12345::1']) {
    const v = classifyAddress(s);
    assert.equal(v.class, 'invalid', `${JSON.stringify(s)} → ${v.class}`);
    assert.equal(v.blocked, true);
  }
});

test('parsers', () => {
  assert.equal(parseIPv4('1.2.3.4'), 0x01020304);
  assert.equal(parseIPv4('255.255.255.255'), 0xffffffff);
  assert.equal(parseIPv4('1.2.3.256'), undefined);
  assert.deepEqual(parseIPv6('::'), [0, 0, 0, 0, 0, 0, 0, 0]);
  assert.deepEqual(parseIPv6('1::'), [1, 0, 0, 0, 0, 0, 0, 0]);
  assert.deepEqual(parseIPv6('1:2:3:4:5:6:7:8'), [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.deepEqual(parseIPv6('::ffff:1.2.3.4'), [0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304]);
  assert.deepEqual(parseIPv6('1:2:3:4:5:6:1.2.3.4'), [1, 2, 3, 4, 5, 6, 0x0102, 0x0304]);
  assert.deepEqual(parseIPv6('fe80::1%25eth0'), [0xfe80, 0, 0, 0, 0, 0, 0, 1]);
  assert.equal(parseIPv6('1:2:3:4:5:6:7:8:9'), undefined);
});
