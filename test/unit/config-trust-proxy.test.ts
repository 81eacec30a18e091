import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { ConfigError, loadConfig } from '../../src/server/config.ts';
import { clientAddressKey } from '../../src/server/platform/client-address.ts';

const load = (trustProxy?: string) => loadConfig({ DATA_DIR: '/tmp/flowsmith-config-test', ...(trustProxy === undefined ? {} : { TRUST_PROXY: trustProxy }) });

/** The client address Fastify gives a request from `socket` carrying `forwardedFor`, under the setting. */
async function clientIpWith(trustProxy: string | undefined, socket: string, forwardedFor?: string): Promise<string> {
  const app = Fastify({ trustProxy: load(trustProxy).trustProxy });
  app.get('/', async (request) => request.ip);
  try {
    const response = await app.inject({ method: 'GET', url: '/', remoteAddress: socket, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} });
    return response.body;
  } finally {
    await app.close();
  }
}

describe('TRUST_PROXY', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['false', false],
    ['true', true],
    [' TRUE ', true],
    ['2', 2],
    ['10.0.0.1', ['10.0.0.1']],
    ['10.0.0.0/8, 192.168.1.0/24,fd00::/8', ['10.0.0.0/8', '192.168.1.0/24', 'fd00::/8']],
    ['loopback,2001:db8::1', ['loopback', '2001:db8::1']],
  ])('reads %j as %j', (value, setting) => {
    expect(load(value).trustProxySetting).toEqual(setting);
  });

  it.each([
    ['yes', 'yes'],
    ['0', 'between 1 and 100'],
    ['101', 'between 1 and 100'],
    ['-1', '"-1"'],
    ['1.5', '"1.5"'],
    ['10.0.0.300', '"10.0.0.300"'],
    ['10.0.0.0/33', '"10.0.0.0/33"'],
    ['2001:db8::/129', '"2001:db8::/129"'],
    ['10.0.0.1,,10.0.0.2', '(an empty entry)'],
    ['proxy.internal', '"proxy.internal"'],
  ])('stops the app at start on %j with a message naming the problem', (value, named) => {
    expect(() => load(value)).toThrow(ConfigError);
    let message = '';
    try {
      load(value);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('TRUST_PROXY must be true, false, the number of proxies in front of the app');
    expect(message).toContain(named);
  });

  it('leaves X-Forwarded-For unread when unset: the socket address is the client', async () => {
    expect(await clientIpWith(undefined, '10.0.0.5', '203.0.113.7')).toBe('10.0.0.5');
  });

  it('takes the client from X-Forwarded-For only when the peer is a listed proxy', async () => {
    expect(await clientIpWith('10.0.0.0/8', '10.0.0.5', '203.0.113.7')).toBe('203.0.113.7');
    expect(await clientIpWith('10.0.0.0/8', '198.51.100.9', '203.0.113.7')).toBe('198.51.100.9');
    // A client cannot hide behind an address it puts in front of the proxy's own entry.
    expect(await clientIpWith('10.0.0.0/8', '10.0.0.5', '1.2.3.4, 203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts the given number of proxies back from the socket', async () => {
    expect(await clientIpWith('1', '10.0.0.5', '1.2.3.4, 203.0.113.7')).toBe('203.0.113.7');
    expect(await clientIpWith('2', '10.0.0.5', '1.2.3.4, 203.0.113.7, 10.0.0.9')).toBe('203.0.113.7');
  });

  it('believes any X-Forwarded-For with true', async () => {
    expect(await clientIpWith('true', '10.0.0.5', '1.2.3.4, 203.0.113.7')).toBe('1.2.3.4');
  });
});

describe('the client address a limit counts', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::abcd', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['64:ff9b::192.0.2.33', '64:ff9b:0:0::/64'],
    ['::ffff:c000:280', '192.0.2.128'],
  ])('counts %s as %s', (ip, key) => {
    expect(clientAddressKey(ip)).toBe(key);
  });
});
