import { describe, expect, it } from 'vitest';
import { pixelSourceOf } from '../../src/server/webhooks/pixel-rate-limiter.ts';

describe('the source a pixel event is counted against', () => {
  it('is the peer itself when the peer is a public address, whatever it forwards', () => {
    expect(pixelSourceOf('203.0.113.9', '198.51.100.1')).toBe('203.0.113.9');
    expect(pixelSourceOf('2001:db8::1', '198.51.100.1')).toBe('2001:db8::1');
  });

  it('is the address a local proxy appended last, which the shopper cannot choose', () => {
    expect(pixelSourceOf('127.0.0.1', '198.51.100.1, 203.0.113.8')).toBe('203.0.113.8');
    expect(pixelSourceOf('10.0.0.5', ['198.51.100.1', '203.0.113.8'])).toBe('203.0.113.8');
    expect(pixelSourceOf('::1', '2001:db8::7')).toBe('2001:db8::7');
  });

  it('falls back to the peer when the header is missing or not an address', () => {
    expect(pixelSourceOf('127.0.0.1', undefined)).toBe('127.0.0.1');
    expect(pixelSourceOf('192.168.1.2', 'not-an-ip')).toBe('192.168.1.2');
  });
});
