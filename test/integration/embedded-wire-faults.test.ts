import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { pgliteModules } from '../../src/server/database/embedded-postgres.ts';
import { serveEmbeddedDatabase } from '../../src/server/database/embedded-wire-server.ts';

// The embedded database's wire server is shared by every connection of the app: a client
// that sends garbage, stalls mid-transaction or vanishes mid-exchange must lose only its
// own connection.
let database: PGlite;
let server: { port: number; close(): Promise<void> };
let pool: pg.Pool;
const idleInTransactionMs = 500;

beforeAll(async () => {
  // The process's compiled PGlite, as the app's database threads use it (embedded-postgres.ts).
  const modules = await pgliteModules();
  database = await PGlite.create({ pgliteWasmModule: modules.pglite, initdbWasmModule: modules.initdb });
  server = await serveEmbeddedDatabase(database, { idleInTransactionMs });
  pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${server.port}/postgres`, max: 4, query_timeout: 5_000 });
  pool.on('error', () => undefined);
  await pool.query('CREATE TABLE notes (id int PRIMARY KEY, text text NOT NULL)');
});
afterAll(async () => {
  await pool?.end();
  await server?.close();
  await database?.close();
});

/** Sends raw bytes on a fresh socket and resolves when the server closes it (or after `waitMs`). */
function sendRaw(bytes: Buffer, waitMs = 2_000): Promise<'closed' | 'open'> {
  return new Promise((resolve) => {
    const socket = connect(server.port, '127.0.0.1', () => socket.write(bytes));
    const timer = setTimeout(() => {
      socket.destroy();
      resolve('open');
    }, waitMs);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve('closed');
    });
  });
}

function int32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeInt32BE(value);
  return buffer;
}

describe('the embedded wire server', () => {
  it('closes connections that send garbage and keeps answering the others', async () => {
    const startup = (length: number, code: number) => Buffer.concat([int32(length), int32(code)]);
    const garbage = [
      startup(0, 80877103), // a zero length with the SSL request code once looped for ever
      startup(-8, 196608),
      startup(1_000_000, 196608),
      Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'),
    ];
    for (const bytes of garbage) expect(await sendRaw(bytes)).toBe('closed');

    // A valid start-up followed by a message of an unknown type, and one with a negative length.
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${server.port}/postgres` });
    client.on('error', () => undefined);
    await client.connect();
    const stream = (client as unknown as { connection: { stream: NodeJS.WritableStream } }).connection.stream;
    stream.write(Buffer.concat([Buffer.from('!'), int32(4)]));
    await expect(client.query('SELECT 1')).rejects.toThrow();

    expect((await pool.query<{ n: number }>('SELECT 1 AS n')).rows).toEqual([{ n: 1 }]);
  });

  it('ends a transaction left idle while others wait, and serves the others', async () => {
    const stalled = await pool.connect();
    stalled.on('error', () => undefined);
    await stalled.query('BEGIN');
    await stalled.query("INSERT INTO notes VALUES (1, 'never committed')");
    const started = Date.now();
    // Waits behind the open transaction until the server gives up on it.
    const { rows } = await pool.query<{ count: number }>('SELECT count(*)::int AS count FROM notes');
    expect(rows[0]!.count).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(idleInTransactionMs - 50);
    await expect(stalled.query('COMMIT')).rejects.toThrow();
    stalled.release(true);
  });

  it('rolls back a transaction begun by a connection that closed while its statement ran', async () => {
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${server.port}/postgres` });
    client.on('error', () => undefined);
    await client.connect();
    // BEGIN and the insert in one exchange; the socket goes while PGlite runs it.
    const sent = client.query("BEGIN; INSERT INTO notes VALUES (2, 'gone'); SELECT pg_sleep(0.2)").catch(() => undefined);
    setTimeout(() => (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy(), 50);
    await sent;
    const { rows } = await pool.query<{ count: number }>('SELECT count(*)::int AS count FROM notes WHERE id = 2');
    expect(rows[0]!.count).toBe(0);
    await pool.query("INSERT INTO notes VALUES (3, 'later')");
    expect((await pool.query('SELECT id FROM notes WHERE id = 3')).rowCount).toBe(1);
  });
});
