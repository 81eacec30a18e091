import { createServer, type Server, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';

/**
 * Serves one PGlite database to many `pg` connections over loopback TCP.
 *
 * PGlite is a single PostgreSQL session. `@electric-sql/pglite-socket` 0.2.17 forwards
 * each protocol message of each connection to it separately, so the Parse/Bind/Execute
 * messages of two connections' parameterised queries interleave, and one connection can
 * receive another's rows (electric-sql/pglite#1046; reproduced here under four concurrent
 * requests). This server forwards whole exchanges instead: everything a connection sends
 * up to and including Sync (or a simple Query, or Flush) runs as one uninterrupted unit,
 * and while a connection holds an open transaction only its own exchanges run. That
 * gives each connection the isolation it would have on a real server, except that
 * concurrent transactions run one after another (docs/decisions/0002-one-database-path.md).
 */
const SSL_REQUEST_CODE = 80877103;
const GSS_ENCRYPTION_REQUEST_CODE = 80877104;
const CANCEL_REQUEST_CODE = 80877102;
const PROTOCOL_3 = 196608;
/** Message types after which a client waits for the server's answer. */
const EXCHANGE_ENDS = new Set(['S', 'Q', 'H']);
/** Every message type a client may send after start-up (PostgreSQL's frontend protocol 3). */
const FRONTEND_MESSAGE_TYPES = new Set(['B', 'C', 'd', 'c', 'f', 'D', 'E', 'H', 'F', 'p', 'P', 'Q', 'S', 'X']);
/** A start-up packet is a few hundred bytes; PostgreSQL refuses ones over 10,000. */
const MAX_STARTUP_BYTES = 10_000;
/** PostgreSQL's own limit for one message (1 GB); a larger length is garbage. */
const MAX_MESSAGE_BYTES = 0x3fffffff;
/**
 * A transaction open this long with no new statement while other connections wait behind
 * it is ended (its connection closed and the transaction rolled back), as a server's
 * idle_in_transaction_session_timeout would: a client that stopped mid-transaction must
 * not hold every other connection of the single session for ever.
 */
export const EMBEDDED_IDLE_IN_TRANSACTION_MS = 10_000;

/**
 * Connections whose `application_name` is this (the intake's own pool, database.ts) go
 * first: a webhook sender waits for its answer (Shopify gives up after 5 s), while the
 * worker's statements can wait a moment. Without it, on the single embedded session the
 * worker's many small statements per event crowd out the intake's few batched ones.
 */
export const PRIORITY_APPLICATION_NAME = 'flowsmith-intake';
/**
 * While the intake is busy, the other connections get this share of the session's time,
 * so the worker keeps going under a flood of webhooks instead of stopping until it passes,
 * but no more: the worker's many small statements filled every gap between two of the
 * intake's batches (a third of the session's time when it sent one at a time; under a
 * flood it now has a second one waiting here, docs/decisions/0058-embedded-intake-pipeline.md).
 */
export const OTHERS_SHARE_WHILE_INTAKE_BUSY = 0.1;
/**
 * The intake counts as busy while its exchange waits, or while it has used at least
 * INTAKE_BUSY_SHARE of the session over the last INTAKE_WINDOW_MS: a flood, which sends
 * its next batch a moment after the last, not webhooks arriving one by one.
 */
const INTAKE_WINDOW_MS = 100;
const INTAKE_BUSY_SHARE = 0.5;
/** The most time the others may bank from the intake's exchanges, so their turn stays short. */
const MAX_OTHERS_CREDIT_MS = 2;

interface Exchange {
  connectionId: number;
  /** Run before the exchanges of other connections that are waiting (see PRIORITY_APPLICATION_NAME). */
  priority: boolean;
  bytes: Uint8Array;
  send: (data: Uint8Array) => void;
  done: () => void;
}

class SerialSession {
  private readonly queue: Exchange[] = [];
  private running = false;
  /** The connection whose transaction is open, if any. */
  private transactionOwner: number | null = null;
  /** The connection whose exchange is running now, if any. */
  private current: number | null = null;
  /** Connections that closed while their exchange ran: their transaction, if it began one, is rolled back after. */
  private readonly closedWhileRunning = new Set<number>();
  private idleTransactionTimer: NodeJS.Timeout | null = null;
  /** Time the other connections may use while the intake is busy (see nextIndex). */
  private othersCreditMs = 0;
  /** The intake's exchanges of the last INTAKE_WINDOW_MS: when each ended, and how long it ran (ms). */
  private recentIntake: Array<{ endedAt: number; took: number }> = [];
  private resumeTimer: NodeJS.Timeout | null = null;
  private readonly database: PGlite;
  private readonly endConnection: (connectionId: number) => void;
  private readonly idleInTransactionMs: number;

  constructor(database: PGlite, endConnection: (connectionId: number) => void, idleInTransactionMs: number) {
    this.database = database;
    this.endConnection = endConnection;
    this.idleInTransactionMs = idleInTransactionMs;
  }

  submit(exchange: Exchange): void {
    this.queue.push(exchange);
    void this.pump();
  }

  /** Forgets a closed connection: drops its queued work and rolls back its open transaction. */
  async release(connectionId: number): Promise<void> {
    for (let index = this.queue.length - 1; index >= 0; index -= 1) {
      if (this.queue[index]!.connectionId === connectionId) this.queue.splice(index, 1)[0]!.done();
    }
    if (this.transactionOwner === connectionId) await this.rollBackOwner();
    else if (this.current === connectionId) this.closedWhileRunning.add(connectionId);
    void this.pump();
  }

  /** Ends the open transaction of a connection that is gone. */
  private async rollBackOwner(): Promise<void> {
    try {
      // `exec` takes PGlite's own lock (runExclusive would deadlock on it), so it waits
      // for any exchange still running.
      if (this.database.isInTransaction()) await this.database.exec('ROLLBACK');
    } catch {
      // A session that cannot even roll back is past saving by this connection.
    }
    this.transactionOwner = null;
  }

  /**
   * The next exchange outside a transaction, or -1 to leave the session to the intake for
   * now. The intake's exchanges go first; while the intake is busy the others run only on
   * credit, which each intake exchange earns them in proportion to its time
   * (OTHERS_SHARE_WHILE_INTAKE_BUSY); when it is not, they run freely.
   */
  private nextIndex(now: number): number {
    const priority = this.queue.findIndex((exchange) => exchange.priority);
    const other = this.queue.findIndex((exchange) => !exchange.priority);
    if (other !== -1 && (!this.intakeBusy(now) || this.othersCreditMs > 0)) return other;
    return priority;
  }

  /** An intake exchange waits, or the intake has kept the session busy of late (a flood). */
  private intakeBusy(now: number): boolean {
    if (this.queue.some((exchange) => exchange.priority)) return true;
    const windowStart = now - INTAKE_WINDOW_MS;
    while (this.recentIntake.length > 0 && this.recentIntake[0]!.endedAt < windowStart) this.recentIntake.shift();
    let used = 0;
    for (const { endedAt, took } of this.recentIntake) used += Math.min(took, endedAt - windowStart);
    return used >= INTAKE_WINDOW_MS * INTAKE_BUSY_SHARE;
  }

  /**
   * Books an exchange's time: the intake's earns the others credit; theirs spends it when
   * the intake was busy as it began, a transaction's statements too (which run in turn
   * whatever waits), so a long transaction is paid back by a longer wait after it.
   */
  private book(exchange: Exchange, intakeWasBusy: boolean, startedAt: number, endedAt: number): void {
    const took = endedAt - startedAt;
    if (exchange.priority) {
      this.recentIntake.push({ endedAt, took });
      const earned = (took * OTHERS_SHARE_WHILE_INTAKE_BUSY) / (1 - OTHERS_SHARE_WHILE_INTAKE_BUSY);
      this.othersCreditMs = Math.min(MAX_OTHERS_CREDIT_MS, this.othersCreditMs + earned);
    } else if (intakeWasBusy) {
      this.othersCreditMs -= took;
    }
  }

  /** Runs the queue again in a moment, when the intake may have become quiet enough for the others to go. */
  private resumeLater(): void {
    if (this.resumeTimer) return;
    this.resumeTimer = setTimeout(() => {
      this.resumeTimer = null;
      void this.pump();
    }, 1);
    this.resumeTimer.unref();
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (;;) {
        // PGlite runs each exchange synchronously; without a turn of the event loop between
        // two, sockets are not read until the whole queue is done, and a priority exchange
        // sent meanwhile would wait behind all of it.
        await new Promise<void>((resolve) => setImmediate(resolve));
        const startedAt = performance.now();
        const index = this.transactionOwner === null ? this.nextIndex(startedAt) : this.queue.findIndex((exchange) => exchange.connectionId === this.transactionOwner);
        if (index === -1 || this.queue.length === 0) {
          // Only the others' exchanges wait, and the intake is busy: they go when it is quiet
          // (or when its next exchange earns them credit).
          if (this.transactionOwner === null && this.queue.length > 0) this.resumeLater();
          break;
        }
        this.clearIdleTransactionTimer();
        const intakeWasBusy = this.intakeBusy(startedAt);
        const exchange = this.queue.splice(index, 1)[0]!;
        this.current = exchange.connectionId;
        try {
          await this.database.runExclusive(() =>
            this.database.execProtocolRawStream(exchange.bytes, { onRawData: exchange.send }),
          );
        } catch {
          // PGlite reports SQL errors inside the protocol stream; a throw here means the
          // exchange could not run at all, and the client sees its connection end.
        } finally {
          this.book(exchange, intakeWasBusy, startedAt, performance.now());
          this.current = null;
          exchange.done();
        }
        this.transactionOwner = this.database.isInTransaction() ? exchange.connectionId : null;
        // The connection closed while its exchange ran: release() found no transaction
        // of it then, but the exchange may just have begun one.
        if (this.closedWhileRunning.delete(exchange.connectionId) && this.transactionOwner !== null) await this.rollBackOwner();
      }
      if (this.transactionOwner !== null && this.queue.length > 0) this.startIdleTransactionTimer(this.transactionOwner);
    } finally {
      this.running = false;
    }
  }

  private startIdleTransactionTimer(owner: number): void {
    if (this.idleTransactionTimer) return;
    this.idleTransactionTimer = setTimeout(() => {
      this.idleTransactionTimer = null;
      if (this.transactionOwner === owner && !this.queue.some((exchange) => exchange.connectionId === owner)) this.endConnection(owner);
    }, this.idleInTransactionMs);
    this.idleTransactionTimer.unref();
  }

  private clearIdleTransactionTimer(): void {
    if (this.idleTransactionTimer) clearTimeout(this.idleTransactionTimer);
    this.idleTransactionTimer = null;
  }
}

/** The name/value pairs of a start-up packet (after its length and protocol code), NUL-separated. */
function startupParameters(message: Buffer): Map<string, string> {
  const fields = message.subarray(8).toString('utf8').split('\0');
  const parameters = new Map<string, string>();
  for (let index = 0; index + 1 < fields.length && fields[index] !== ''; index += 2) parameters.set(fields[index]!, fields[index + 1]!);
  return parameters;
}

/**
 * Serves `database` on a loopback port (`port`, or a free one). A client that sends garbage or goes away
 * mid-exchange loses its own connection (and open transaction) only.
 */
export async function serveEmbeddedDatabase(
  database: PGlite,
  options: { idleInTransactionMs?: number; port?: number } = {},
): Promise<{ port: number; close(): Promise<void> }> {
  await database.waitReady;
  const sockets = new Map<number, Socket>();
  const session = new SerialSession(database, (connectionId) => sockets.get(connectionId)?.destroy(), options.idleInTransactionMs ?? EMBEDDED_IDLE_IN_TRANSACTION_MS);
  let nextConnectionId = 1;

  const server: Server = createServer((socket) => {
    const connectionId = nextConnectionId++;
    sockets.set(connectionId, socket);
    socket.setNoDelay(true);
    let buffer: Buffer = Buffer.alloc(0);
    let startupDone = false;
    let priority = false;
    let pending: Buffer[] = [];

    const submit = (bytes: Buffer) => {
      // PGlite hands over its answer in pieces that are views of its own memory, which it
      // overwrites with the next piece: a piece the socket could not send at once (a large
      // result) was sent later with other bytes in it. Each piece is copied, and the answer
      // goes out in one (corked) write once the exchange is done, instead of a system call a piece.
      let answer: Buffer[] = [];
      session.submit({
        connectionId,
        priority,
        bytes,
        send: (data) => {
          if (data.length > 0) answer.push(Buffer.from(data));
        },
        done: () => {
          if (answer.length > 0 && socket.writable) {
            socket.cork();
            for (const piece of answer) socket.write(piece);
            socket.uncork();
          }
          answer = [];
        },
      });
    };

    const readMessages = () => {
      for (;;) {
        if (!startupDone) {
          if (buffer.length < 8) return;
          const length = buffer.readInt32BE(0);
          if (length < 8 || length > MAX_STARTUP_BYTES) {
            socket.destroy();
            return;
          }
          if (buffer.length < length) return;
          const code = buffer.readInt32BE(4);
          const message = buffer.subarray(0, length);
          buffer = buffer.subarray(length);
          if (code === SSL_REQUEST_CODE || code === GSS_ENCRYPTION_REQUEST_CODE) {
            socket.write('N');
            continue;
          }
          if (code === CANCEL_REQUEST_CODE) {
            socket.end();
            return;
          }
          if (code !== PROTOCOL_3) {
            socket.destroy();
            return;
          }
          startupDone = true;
          priority = startupParameters(message).get('application_name') === PRIORITY_APPLICATION_NAME;
          submit(Buffer.from(message));
          continue;
        }
        if (buffer.length < 5) return;
        const type = String.fromCharCode(buffer[0]!);
        const declared = buffer.readInt32BE(1);
        if (!FRONTEND_MESSAGE_TYPES.has(type) || declared < 4 || declared > MAX_MESSAGE_BYTES) {
          // What PostgreSQL does with an invalid message: end the connection.
          socket.destroy();
          return;
        }
        const length = 1 + declared;
        if (buffer.length < length) return;
        const message = buffer.subarray(0, length);
        buffer = buffer.subarray(length);
        if (type === 'X') {
          socket.end();
          return;
        }
        // A view, not a copy: the chunk it lies in is never written again, and the
        // exchange's one copy is made when its messages are joined below.
        pending.push(message);
        if (EXCHANGE_ENDS.has(type)) {
          submit(Buffer.concat(pending));
          pending = [];
        }
      }
    };

    socket.on('data', (chunk: Buffer) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      try {
        readMessages();
      } catch {
        socket.destroy();
      }
    });
    const closed = () => {
      if (!sockets.delete(connectionId)) return;
      void session.release(connectionId);
    };
    socket.on('close', closed);
    socket.on('error', closed);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address !== 'object') throw new Error('embedded database server has no port');
  return {
    port: address.port,
    async close() {
      for (const socket of sockets.values()) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
