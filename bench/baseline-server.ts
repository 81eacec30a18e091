import { createHmac, timingSafeEqual } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

/**
 * The least a Fastify webhook receiver can do, as the yardstick for `bench:ingest`: take
 * the raw body, verify the Shopify HMAC, insert the body, answer 202. Same database, same
 * pool size as Flowsmith's web role, no logging.
 */
const port = Number(process.env.PORT);
const secret = process.env.SIGNING_SECRET ?? '';
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
await pool.query('CREATE TABLE IF NOT EXISTS baseline_events (id bigserial PRIMARY KEY, body text NOT NULL, received_at timestamptz NOT NULL DEFAULT now())');

const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
app.get('/', async () => 'ok');
app.post('/webhook', async (request, reply) => {
  const body = request.body as Buffer;
  const expected = createHmac('sha256', secret).update(body).digest();
  const received = Buffer.from(String(request.headers['x-shopify-hmac-sha256'] ?? ''), 'base64');
  if (received.length !== expected.length || !timingSafeEqual(received, expected)) return reply.code(401).send();
  const { rows } = await pool.query<{ id: string }>('INSERT INTO baseline_events (body) VALUES ($1) RETURNING id', [body.toString('utf8')]);
  return reply.code(202).send({ eventId: String(rows[0]!.id) });
});
await app.listen({ port, host: '127.0.0.1' });
process.once('SIGTERM', () => void app.close().then(() => pool.end()).then(() => process.exit(0)));
