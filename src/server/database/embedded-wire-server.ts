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
/** At most this many priority exchanges run in a row while another connection's waits. */
const PRIORITY_RUN = 3;

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
  /** Priority exchanges run in a row while others waited (see nextIndex). */
  private priorityRun = 0;
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
   * The next exchange outside a transaction: a priority one first, but never more than
   * PRIORITY_RUN of them in a row while another waits, so the worker keeps a share under
   * a flood of webhooks instead of stopping until it passes.
   */
  private nextIndex(): number {
    const priority = this.queue.findIndex((exchange) => exchange.priority);
    const other = this.queue.findIndex((exchange) => !exchange.priority);
    const index = priority !== -1 && (other === -1 || this.priorityRun < PRIORITY_RUN) ? priority : Math.max(0, other);
    this.priorityRun = this.queue[index]?.priority ? this.priorityRun + 1 : 0;
    return index;
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
        const index = this.transactionOwner === null ? this.nextIndex() : this.queue.findIndex((exchange) => exchange.connectionId === this.transactionOwner);
        if (index === -1 || this.queue.length === 0) break;
        this.clearIdleTransactionTimer();
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
        bytes: new Uint8Array(bytes),
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
        pending.push(Buffer.from(message));
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
