import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/server/database/embedded-postgres.ts';

// The embedded database serves many connections from one PGlite session; these tests
// pin down that connections stay isolated (electric-sql/pglite#1046 mixed them up).
let embedded: EmbeddedPostgres;
let pool: pg.Pool;
beforeAll(async () => {
  embedded = await startEmbeddedPostgres(undefined);
  pool = new pg.Pool({ connectionString: embedded.connectionString, max: 8 });
  await pool.query('CREATE TABLE items (id int PRIMARY KEY, label text NOT NULL)');
  await pool.query("INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 200) g");
});
afterAll(async () => {
  await pool?.end();
  await embedded?.stop();
});

describe('embedded database under concurrent connections', () => {
  it('answers each of many concurrent parameterised queries with its own rows', async () => {
    // Distinct statement texts: interleaved Parse/Bind messages of two connections would
    // bind one connection's parameters to the other's statement.
    const ids = Array.from({ length: 400 }, (_unused, index) => (index % 200) + 1);
    const answers = await Promise.all(
      ids.map((id, index) => pool.query<{ id: number; label: string; n: number }>(`SELECT id, label, ${index} AS n FROM items WHERE id = $1`, [id])),
    );
    answers.forEach((answer, index) => {
      expect(answer.rows).toEqual([{ id: ids[index], label: `item ${ids[index]}`, n: index }]);
    });
  });

  // PGlite hands its answer over in views of its own memory; a piece the socket could not
  // send at once was sent later, overwritten by the next piece. A result larger than the
  // socket's buffers (a Klaviyo bulk batch reaches 5 MB) came back cut short and garbled.
  it('answers a result larger than the socket can take at once intact', async () => {
    const { rows } = await pool.query<{ i: number; body: string }>("SELECT i, repeat(lpad(i::text, 8, '0'), 4000) AS body FROM generate_series(1, 600) AS i");
    expect(rows).toHaveLength(600);
    const garbled = rows.filter((row) => row.body !== String(row.i).padStart(8, '0').repeat(4_000)).map((row) => row.i);
    expect(garbled).toEqual([]);
  });

  it('keeps an open transaction private to its connection until it commits', async () => {
    const writer = await pool.connect();
    try {
      await writer.query('BEGIN');
      await writer.query("INSERT INTO items VALUES (1000, 'pending')");
      const reader = pool.query<{ count: number }>('SELECT count(*)::int AS count FROM items WHERE id = 1000');
      await writer.query('COMMIT');
      // The reader ran only after the writer's transaction ended, so it saw its commit.
      expect((await reader).rows[0]!.count).toBe(1);
    } finally {
      writer.release();
    }
  });

  it('rolls back a transaction whose connection dies, and keeps serving the others', async () => {
    const client = new pg.Client({ connectionString: embedded.connectionString });
    client.on('error', () => undefined);
    await client.connect();
    await client.query('BEGIN');
    await client.query("INSERT INTO items VALUES (2000, 'never committed')");
    const waiting = pool.query<{ count: number }>('SELECT count(*)::int AS count FROM items WHERE id = 2000');
    (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    expect((await waiting).rows[0]!.count).toBe(0);
  });

  it('reports errors to the connection that caused them only', async () => {
    const results = await Promise.allSettled([
      pool.query('SELECT * FROM no_such_table WHERE id = $1', [1]),
      pool.query<{ label: string }>('SELECT label FROM items WHERE id = $1', [7]),
    ]);
    expect(results[0]!.status).toBe('rejected');
    expect(results[1]).toMatchObject({ status: 'fulfilled', value: { rows: [{ label: 'item 7' }] } });
  });
});
