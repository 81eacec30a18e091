import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { startE2EServer } from '../support/e2e-server.ts';

/**
 * The browser tests' server helper. A port found free can be taken before the server
 * listens on it (a run failed when another file's server or a connection took it): the
 * helper then starts the server again on another port instead of failing the file.
 */
const takers = {
  // It drops whatever connects, so the helper's look at it for readiness ends at once.
  'drops every connection': () => createServer((socket) => socket.destroy()),
  // As another file's Flowsmith server would: its /readyz answers 200.
  'answers /readyz as a ready server': () =>
    createServer((socket) => {
      socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 18\r\nconnection: close\r\n\r\n{"status":"ready"}'));
    }),
};

it.each(Object.keys(takers) as Array<keyof typeof takers>)('starts the server on another port when the one it picked was taken before the server listened, by one that %s', async (taker) => {
  const taken = takers[taker]();
  await new Promise<void>((resolve) => taken.listen(0, '0.0.0.0', resolve));
  const takenPort = (taken.address() as AddressInfo).port;
  const picked: number[] = [];
  try {
    const server = await startE2EServer({
      requireWebApp: false,
      // The first port handed out is already listened on, as when another process takes it
      // between the helper's look and the server's listen.
      pickPort: async () => {
        const port = picked.length === 0 ? takenPort : await freePortOnce();
        picked.push(port);
        return port;
      },
    });
    try {
      expect(picked[0]).toBe(takenPort);
      expect(picked).toHaveLength(2);
      expect(server.baseUrl).toBe(`http://127.0.0.1:${picked[1]}`);
      expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
      // The server handed back is the second try's, still running.
      expect(server.exited()).toBe(false);
    } finally {
      await server.stop();
    }
  } finally {
    await close(taken);
  }
});

async function freePortOnce(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await close(probe);
  return port;
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
