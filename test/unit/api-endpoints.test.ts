import { afterEach, describe, expect, it, vi } from 'vitest';
import { endpointAddress } from '../../src/shared/api/endpoint.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';
import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { callEndpoint } from '../../src/web/app/api-client.ts';
import { registerEndpoint } from '../../src/server/platform/register-endpoint.ts';

afterEach(() => vi.unstubAllGlobals());

function answering(status: number, body: unknown) {
  const calls: { url: string; init: RequestInit }[] = [];
  vi.stubGlobal('fetch', (url: string, init: RequestInit) => {
    calls.push({ url, init });
    return Promise.resolve(new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } }));
  });
  return calls;
}

describe('the endpoint table', () => {
  it('fills path parameters encoded, and leaves out empty query values', () => {
    expect(endpointAddress(endpoints.events.detail, { params: { eventId: 'a/b c' } })).toBe('/api/events/a%2Fb%20c');
    expect(endpointAddress(endpoints.events.list, { query: { flowType: 'abandoned_cart', limit: 25, status: undefined } })).toBe('/api/events?flowType=abandoned_cart&limit=25');
    expect(() => endpointAddress(endpoints.flows.update, {})).toThrow(/flowType/);
  });

  it('names every endpoint once, with a schema module that loads', async () => {
    const all = Object.values(endpoints).flatMap((group) => Object.values(group));
    const routes = all.map((entry) => `${entry.method} ${entry.path}`);
    expect(new Set(routes).size).toBe(routes.length);
    for (const entry of all) expect(entry.path.startsWith('/api/')).toBe(true);
    for (const entry of all) await expect(entry.schemas()).resolves.toBeTypeOf('object');
  });
});

describe('calling an endpoint', () => {
  it('sends the method, address and body the table names, and returns the parsed answer', async () => {
    const calls = answering(200, { signature: { required: false, maskedSecret: null, createdAt: null, previousSecretValidUntil: null } });
    const answer = await callEndpoint(endpoints.flowSignature.read, { params: { flowType: 'post_purchase' } });
    expect(answer.signature.required).toBe(false);
    expect(calls[0]!.url).toBe('/api/flows/post_purchase/signature');
    expect(calls[0]!.init.method).toBe('GET');
    expect(calls[0]!.init.body).toBeUndefined();
  });

  it('sends an empty JSON body on a POST without one of its own', async () => {
    const calls = answering(200, { message: 'bye' });
    await callEndpoint(endpoints.account.signOut);
    expect(calls[0]!.init.body).toBe('{}');
  });

  it('passes the answer on as the server sent it, without loading a schema', async () => {
    answering(200, { user: { id: 'u1', email: 'owner@example.com' } });
    const schemas = vi.spyOn(endpoints.account.session, 'schemas');
    const answer = await callEndpoint(endpoints.account.session);
    expect(answer).toEqual({ user: { id: 'u1', email: 'owner@example.com' } });
    expect(schemas).not.toHaveBeenCalled();
  });
});

describe('an answer its response schema does not allow', () => {
  // The browser reads answers without parsing them again (src/web/app/api-client.ts), so
  // this check on the server is what keeps an answer true to the shared schema.
  it('is never sent: the server answers 500 instead', async () => {
    const app = Fastify({ logger: false });
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    await app.register(async (scope) => {
      await registerEndpoint(scope, endpoints.flowSignature.read, {}, () => ({ signature: { required: 'yes' } }) as never);
    });
    const answer = await app.inject({ method: 'GET', url: endpointAddress(endpoints.flowSignature.read, { params: { flowType: 'post_purchase' } }) });
    expect(answer.statusCode).toBe(500);
    expect(answer.body).not.toContain('"required":"yes"');
    await app.close();
  });
});
