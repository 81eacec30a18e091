import { describe, expect, it } from 'vitest';
import { startFakeServer, type Contract } from '../fakes/fake-server.ts';

// The mechanism that makes a test fail when the app sends what a vendor would refuse, or
// a stand-in answers in a shape the vendor never sends (docs/decisions/0032).
const contract: Contract = {
  checkRequest: (request) => (request.path === '/refused' ? { reply: { status: 400, body: { error: 'refused' } }, problems: ["'x' is not a field the definition has"] } : undefined),
  checkReply: (_request, reply) => ((reply.body as { shape?: string } | undefined)?.shape === 'wrong' ? ["/: 'id' is required"] : []),
};

async function serverAnswering(body: unknown) {
  return startFakeServer(() => ({ status: 200, body }), contract);
}

describe('a stand-in holding a contract', () => {
  it("answers a refused request with the vendor's refusal, without its own handler, and fails on close", async () => {
    const server = await serverAnswering({ shape: 'right' });
    const answer = await fetch(`${server.baseUrl}/refused`, { method: 'POST', body: '{}' });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({ error: 'refused' });
    await expect(server.close()).rejects.toThrow("Against the vendor's definition:\nsent POST /refused: 'x' is not a field the definition has");
  });

  it('fails on close when its own answer breaks the definition', async () => {
    const server = await serverAnswering({ shape: 'wrong' });
    expect((await fetch(`${server.baseUrl}/fine`)).status).toBe(200);
    await expect(server.close()).rejects.toThrow("answered GET /fine: /: 'id' is required");
  });

  it('closes cleanly once a test has taken the violations it meant to cause, and skips deliberate wire faults', async () => {
    const server = await serverAnswering({ shape: 'right' });
    await fetch(`${server.baseUrl}/refused`, { method: 'POST', body: '{}' });
    expect(server.takeViolations()).toEqual([{ side: 'request', method: 'POST', path: '/refused', problems: ["'x' is not a field the definition has"] }]);
    const faulty = await startFakeServer(() => ({ status: 200, body: { shape: 'wrong' }, offContract: true }), contract);
    expect((await fetch(`${faulty.baseUrl}/fault`)).status).toBe(200);
    await expect(faulty.close()).resolves.toBeUndefined();
    await expect(server.close()).resolves.toBeUndefined();
  });
});
