import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { isDatabaseInputError, isDatabaseUnavailable } from '../../src/server/database/database-errors.ts';
import { registerErrorHandler } from '../../src/server/platform/error-handler.ts';
import { HttpError } from '../../src/server/platform/http-errors.ts';
import { requestMessages } from '../../src/shared/messages.ts';

/** An error as `pg` reports a server's answer: a message and a SQLSTATE code. */
function pgError(code: string, message = 'database error'): Error {
  return Object.assign(new Error(message), { code });
}

describe('classifying database errors', () => {
  it.each([
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['a reset connection', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['a connection ended by the server', new Error('Connection terminated unexpectedly')],
    ['a pool with no free connection in time', new Error('timeout exceeded when trying to connect')],
    ['a frozen server (client read timeout)', new Error('Query read timeout')],
    ['a client whose connection failed', new Error('Client has encountered a connection error and is not queryable')],
    ['an administrator shutdown (57P01)', pgError('57P01', 'terminating connection due to administrator command')],
    ['a crash shutdown (57P02)', pgError('57P02')],
    ['a server still starting (57P03)', pgError('57P03', 'the database system is starting up')],
    ['a statement timeout (57014)', pgError('57014', 'canceling statement due to statement timeout')],
    ['too many connections (53300)', pgError('53300', 'sorry, too many clients already')],
    ['a connection exception (08006)', pgError('08006')],
    ['a wrapped cause', new Error('Failed to get session', { cause: pgError('08001') })],
    ['one of several errors', new AggregateError([new Error('unrelated'), Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' })])],
  ])('says the database is unavailable for %s', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(isDatabaseInputError(error)).toBe(false);
  });

  it.each([
    ['a unique violation (23505)', pgError('23505')],
    ['a missing table (42P01)', pgError('42P01')],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a thrown string', 'oops'],
    ['nothing', undefined],
  ])('does not blame the database for %s', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it.each([
    ['a NUL byte (22021)', pgError('22021', 'invalid byte sequence for encoding "UTF8": 0x00')],
    ['a date out of range (22008)', pgError('22008', 'date/time field value out of range')],
    ['an invalid text representation (22P02)', pgError('22P02')],
    ['a NUL in jsonb (22P05)', pgError('22P05', 'unsupported Unicode escape sequence')],
    ['an index row too large (54000)', pgError('54000')],
  ])('calls %s bad input', (_name, error) => {
    expect(isDatabaseInputError(error)).toBe(true);
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('the error handler', () => {
  let app: FastifyInstance | null = null;
  afterEach(async () => {
    await app?.close();
    app = null;
  });

  /** An app whose one route throws `error`; `reachable` is what a database probe would say. */
  async function appThrowing(error: unknown, reachable?: boolean): Promise<FastifyInstance> {
    app = Fastify({ logger: false });
    registerErrorHandler(app);
    if (reachable !== undefined) app.decorate('database', { availability: { isReachable: async () => reachable } } as never);
    app.get('/fails', async () => {
      throw error;
    });
    await app.ready();
    return app;
  }

  it.each([
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['a read timeout', new Error('Query read timeout')],
    ['an administrator shutdown', pgError('57P01')],
    ['a pool timeout', new Error('timeout exceeded when trying to connect')],
  ])('answers 503 with Retry-After and the shared error body for %s', async (_name, error) => {
    const response = await (await appThrowing(error)).inject({ method: 'GET', url: '/fails' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.json()).toEqual({ error: 'database_unavailable', message: requestMessages.databaseUnavailable, retryAfterSeconds: 5 });
  });

  it('answers 400 for a value the database refused, without its details', async () => {
    const response = await (await appThrowing(pgError('22021', 'invalid byte sequence for encoding "UTF8": 0x00'))).inject({ method: 'GET', url: '/fails' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: 'invalid_value', message: requestMessages.unreadableValue });
  });

  it('keeps other unexpected errors a bare 500 while the database answers', async () => {
    const response = await (await appThrowing(new TypeError('a bug'), true)).inject({ method: 'GET', url: '/fails' });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ error: 'internal', message: requestMessages.internal });
  });

  it('answers 503 for an error a library made of an outage (its own 500) while the database does not answer', async () => {
    for (const error of [new Error('FAILED_TO_GET_SESSION'), new HttpError('internal', 'An error occurred during sign up')]) {
      const response = await (await appThrowing(error, false)).inject({ method: 'GET', url: '/fails' });
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBe('5');
      await app?.close();
    }
  });
});
