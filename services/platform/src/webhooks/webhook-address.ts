import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * IPv4-compatible addresses (`::a.b.c.d`, deprecated by RFC 4291): ipaddr.js
 * names no range for them, yet a host may still route one to its IPv4 address.
 */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');
/**
 * NAT64's well-known prefix (RFC 6052), which reaches the IPv4 address in its
 * last 32 bits. ipaddr.js gives its range's name to the local-use 64:ff9b:1::/48
 * too, which is no global address and stays refused whatever it carries.
 */
const NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

const ipv4Of = (high = 0, low = 0) =>
  new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/** The IPv4 address a connection to `address` reaches, for the IPv6 forms that carry one. */
function carriedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const [, second, third, , , , seventh, eighth] = address.parts;
  switch (address.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d, IPv4-translated
      return ipv4Of(seventh, eighth);
    case 'rfc6052':
      return address.match(NAT64) ? ipv4Of(seventh, eighth) : undefined;
    case '6to4': // 2002:aabb:ccdd::/48
      return ipv4Of(second, third);
    default:
      return address.match(IPV4_COMPATIBLE) ? ipv4Of(seventh, eighth) : undefined;
  }
}

/**
 * True for an address a webhook may not reach unless WEBHOOK_ALLOW_PRIVATE is
 * true: any in one of the special-purpose ranges ipaddr.js knows (loopback,
 * private, link-local, unique-local, site-local, CGNAT, multicast,
 * documentation, benchmarking, reserved, …), judged by the IPv4 address it
 * carries when it is an IPv6 form of one.
 */
export function isPrivateAddress(text: string): boolean {
  if (isIP(text) === 0) return true;
  const address = ipaddr.parse(text);
  const reached = address instanceof ipaddr.IPv6 ? (carriedIPv4(address) ?? address) : address;
  return reached.range() !== 'unicast';
}

/** The addresses a URL's host names: itself when it is one, else what DNS answers. */
export async function addressesOf(hostname: string): Promise<string[]> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) !== 0) return [host];
  return (await lookup(host, { all: true })).map(({ address }) => address);
}
