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

interface Exchange {
  connectionId: number;
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

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (;;) {
        const index =
          this.transactionOwner === null
            ? 0
            : this.queue.findIndex((exchange) => exchange.connectionId === this.transactionOwner);
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

/**
 * Serves `database` on a random loopback port. A client that sends garbage or goes away
 * mid-exchange loses its own connection (and open transaction) only.
 */
export async function serveEmbeddedDatabase(
  database: PGlite,
  options: { idleInTransactionMs?: number } = {},
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
    let pending: Buffer[] = [];

    const submit = (bytes: Buffer) => {
      session.submit({
        connectionId,
        bytes: new Uint8Array(bytes),
        send: (data) => {
          if (data.length > 0 && socket.writable) socket.write(data);
        },
        done: () => undefined,
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
    server.listen(0, '127.0.0.1', () => resolve());
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
