import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The client a per-address limit counts: `request.ip`, which names the real client only
 * when TRUST_PROXY tells Fastify which proxies to believe (docs/decisions/0016). An IPv4
 * address counts as itself, also when it arrives IPv4-mapped (::ffff:203.0.113.9); an
 * IPv6 address counts as its /64, the block one subscriber gets, since anyone holding a
 * /64 can change the rest of their address at will.
 */
export function clientAddressKey(ip: string): string {
  // A zone (fe80::1%eth0) names an interface of this host, not the client.
  const text = ip.replace(/%.*$/, '');
  // Node decides what is IPv6: ipaddr.js alone would also read legacy IPv4 forms
  // ("10.1", "010.0.0.1") as other addresses than the text says.
  if (isIP(text) !== 6) return text;
  const address = ipaddr.IPv6.parse(text);
  if (address.isIPv4MappedAddress()) return address.toIPv4Address().toString();
  return `${address.parts
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}
