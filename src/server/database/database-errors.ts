/**
 * What a database error means for the caller: the database cannot answer now (a 503, try
 * again later), the input was something PostgreSQL cannot hold (a 400), or neither.
 */

/** Socket and DNS errors of a connection that was refused, dropped or never made. */
const unavailableNetworkCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);

/**
 * SQLSTATEs of a server that cannot do the work now, whatever the statement: shutting
 * down or restarting (57P01 admin_shutdown, 57P02 crash_shutdown, 57P03
 * cannot_connect_now), out of connections or resources (53xxx), the statement timeout
 * (57014 query_canceled, the only cancel the app's own code causes), a lock not granted in
 * time (55P03), a serialisation conflict or deadlock (40001, 40P01), and every connection
 * exception (class 08).
 */
const unavailableSqlStates = new Set(['57P01', '57P02', '57P03', '57014', '55P03', '40001', '40P01']);

/** What `pg` and `pg-pool` say, in their own words, when a connection failed or timed out. */
const unavailableMessages = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /query read timeout/i,
  /connection error and is not queryable/i,
  /cannot use a pool after calling end/i,
  /timeout expired/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
  /sorry, too many clients/i,
  /connect ECONNREFUSED/i,
];

function codeOf(error: object): string | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** The error and what it wraps (`cause`, an AggregateError's errors), a few levels deep. */
function* errorChain(error: unknown, depth = 0): Generator<object> {
  if (error === null || typeof error !== 'object' || depth > 5) return;
  yield error;
  yield* errorChain((error as { cause?: unknown }).cause, depth + 1);
  const errors = (error as { errors?: unknown }).errors;
  if (Array.isArray(errors)) for (const inner of errors.slice(0, 5)) yield* errorChain(inner, depth + 1);
}

/** True when the error says the database is unreachable, stopped, overloaded or too slow. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const link of errorChain(error)) {
    const code = codeOf(link);
    if (code !== undefined) {
      if (unavailableNetworkCodes.has(code) || unavailableSqlStates.has(code)) return true;
      if (/^(08|53)[0-9A-Z]{3}$/.test(code)) return true;
    }
    const message = (link as { message?: unknown }).message;
    if (typeof message === 'string' && unavailableMessages.some((pattern) => pattern.test(message))) return true;
  }
  return false;
}

/** True when a row refers to one that no longer exists (23503), as when it was deleted meanwhile. */
export function isForeignKeyViolation(error: unknown): boolean {
  for (const link of errorChain(error)) if (codeOf(link) === '23503') return true;
  return false;
}

/**
 * True when PostgreSQL refused a value the request carried: a data exception (class 22:
 * an invalid text representation, a date out of range, a NUL byte or a broken character,
 * a string or number too long) or a value too large for an index (54000). Input checks
 * should catch these first; this keeps one that slips through a 400 rather than a 500.
 */
export function isDatabaseInputError(error: unknown): boolean {
  for (const link of errorChain(error)) {
    const code = codeOf(link);
    if (code !== undefined && (/^22[0-9A-Z]{3}$/.test(code) || code === '54000')) return true;
  }
  return false;
}
