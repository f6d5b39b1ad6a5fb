import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../src/webhooks/webhook-address.js';

/** An address as it reaches the check: from DNS, or a URL's host once WHATWG URL has written it. */
const hostOf = (literal: string) => new URL(`http://${literal}/`).hostname.replace(/^\[|\]$/g, '');

describe('isPrivateAddress', () => {
  it.each([
    // Refused before: loopback, RFC 1918, link-local, this network, multicast and reserved.
    '127.0.0.1',
    '127.255.0.9',
    '10.1.2.3',
    '172.20.0.1',
    '192.168.0.10',
    '169.254.169.254',
    '0.0.0.0',
    '224.0.0.251',
    '240.0.0.1',
    '255.255.255.255',
    '[::1]',
    '[::]',
    '[fe80::1]',
    '[fc00::1]',
    '[fd12:3456::1]',
    '[ff02::1]',
    '[::ffff:127.0.0.1]',
    // IANA special-purpose IPv4 ranges.
    '100.64.0.1', // CGNAT, RFC 6598
    '100.127.255.254',
    '192.0.0.8', // IETF protocol assignments
    '192.0.2.10', // TEST-NET-1
    '198.51.100.7', // TEST-NET-2
    '203.0.113.99', // TEST-NET-3
    '198.18.0.1', // benchmarking, RFC 2544
    '198.19.255.255',
    '192.88.99.1', // 6to4 relay anycast
    // IPv6 forms that reach a refused IPv4 address.
    '[::ffff:10.0.0.1]', // IPv4-mapped
    '[::ffff:0:127.0.0.1]', // IPv4-translated, ::ffff:0:0:0/96
    '[::ffff:0:a9fe:a9fe]',
    '[::7f00:1]', // IPv4-compatible, ::/96
    '[::127.0.0.1]',
    '[::192.168.1.1]',
    '[64:ff9b::127.0.0.1]', // NAT64, RFC 6052
    '[64:ff9b::a00:1]',
    '[64:ff9b:1::8.8.8.8]', // NAT64's local-use prefix, RFC 8215: never global
    '[2002:7f00:1::]', // 6to4 of 127.0.0.1
    '[2002:c0a8:101::1]', // 6to4 of 192.168.1.1
    // IANA special-purpose IPv6 ranges.
    '[fec0::1]', // site-local, RFC 3879
    '[feff::1]',
    '[2001:db8::1]', // documentation, RFC 3849
    '[3fff::1]', // documentation, RFC 9637
    '[2001:2::1]', // benchmarking, RFC 5180
    '[2001::1]', // Teredo
    '[100::1]', // discard-only, RFC 6666
    '[2001:10::1]', // ORCHID, deprecated
    '[5f00::1]', // SRv6 SIDs, RFC 9602
    'not-an-address',
  ])('refuses %s', (literal) => {
    expect(isPrivateAddress(hostOf(literal))).toBe(true);
  });

  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '100.63.255.255', // just below CGNAT
    '100.128.0.1', // just above it
    '198.17.255.255', // just below benchmarking
    '198.20.0.1', // just above it
    '[2606:4700::1111]',
    '[2a00:1450:4001:80b::200e]',
    '[::ffff:93.184.215.14]', // IPv4-mapped public
    '[64:ff9b::93.184.215.14]', // NAT64 of a public address
    '[2002:5db8:d70e::1]', // 6to4 of 93.184.215.14
  ])('takes the public %s', (literal) => {
    expect(isPrivateAddress(hostOf(literal))).toBe(false);
  });
});
