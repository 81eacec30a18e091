import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createLogger, loggableUrl } from '../../src/server/logger.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

describe('request logs', () => {
  it("cut a flow's URL key to a prefix, in the webhook route and the handler page's check", () => {
    expect(loggableUrl('/api/webhooks/post_purchase/SECRETKEY123')).toBe('/api/webhooks/post_purchase/SECR…');
    expect(loggableUrl('/api/webhooks/post_purchase/SECRETKEY123?x=1')).toBe('/api/webhooks/post_purchase/SECR…?x=1');
    // The handler page's check, filled in by hand: endpointAddress would encode the cut key's "…".
    const statusCheck = (key: string) => endpoints.webhooks.status.path.replace(':flowType', 'abandoned_cart').replace(':flowId', key);
    expect(loggableUrl(statusCheck('SECRETKEY123'))).toBe(statusCheck('SECR…'));
    expect(loggableUrl(endpoints.flows.list.path)).toBe(endpoints.flows.list.path);
  });

  it('never carry the key when Fastify logs a request', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString('utf8')), done()) }));
    const app = Fastify({ loggerInstance: logger as never });
    app.post('/api/webhooks/:flowType/:key', async () => ({ ok: true }));
    await app.inject({ method: 'POST', url: '/api/webhooks/post_purchase/SECRETKEY123', payload: {} });
    await app.close();
    const incoming = lines.map((line) => JSON.parse(line) as { msg: string; req?: { method: string; url: string } }).find((line) => line.msg === 'incoming request');
    expect(incoming?.req).toMatchObject({ method: 'POST', url: '/api/webhooks/post_purchase/SECR…' });
    expect(lines.join('')).not.toContain('SECRETKEY123');
  });
});
