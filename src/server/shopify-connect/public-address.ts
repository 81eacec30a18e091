import { isIP } from 'node:net';

/**
 * Whether Shopify could deliver to `publicUrl`: not localhost, a loopback, private,
 * link-local or unspecified address, nor a `.local`/`.localhost` name. Only the
 * configured address is judged; the app never calls it, so tests may configure a
 * public-looking one while the fake Shopify is reached through SHOPIFY_BASE_URL.
 */
export function isPublicAddress(publicUrl: string): boolean {
  let host: string;
  try {
    host = new URL(publicUrl).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal')) return false;
  const version = isIP(host);
  if (version === 4) return !privateIpv4(host);
  if (version === 6) return !privateIpv6(host);
  return host.includes('.');
}

function privateIpv4(address: string): boolean {
  const [a, b] = address.split('.').map(Number) as [number, number];
  return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
}

function privateIpv6(address: string): boolean {
  if (address === '::' || address === '::1') return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped) return privateIpv4(mapped[1]!);
  return /^f[cd]/.test(address) || /^fe[89ab]/.test(address);
}
