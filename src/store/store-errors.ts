/**
 * Why the state store could not take a change. Both are passing conditions a client is told
 * as such (NO [UNAVAILABLE], SMTP 451), never as a bridge defect: the change was not made and
 * may be tried again, on this node once the database answers, or on the mailbox's new node.
 */

/** The database did not answer (down, cut off, too slow): nothing was stored. */
export class StoreUnavailableError extends Error {
  constructor(readonly cause: unknown) {
    super(`the bridge's database is unreachable: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'StoreUnavailableError';
  }
}

/** Writes of these accounts were refused: another node owns them now (or this node lost its lease). */
export class FencedError extends Error {
  constructor(readonly accounts: ReadonlySet<string>) {
    super(`writes refused: this node no longer owns ${[...accounts].join(', ')}`);
    this.name = 'FencedError';
  }
}

/** A database call's failure as the caller should see it: an outage as StoreUnavailableError. */
export function storeFailure(err: unknown): unknown {
  return isOutage(err) ? new StoreUnavailableError(err) : err;
}

/**
 * Whether a failure of a database call is the database being out of reach rather than a
 * refused statement: a socket error or timeout (no SQLSTATE), a connection failure (08),
 * insufficient resources (53) or an operator's shutdown (57).
 */
export function isOutage(err: unknown): boolean {
  // the server's errors carry a severity; a client's own (ECONNREFUSED, EPIPE, a timeout) do not
  const { code, severity } = (err ?? {}) as { code?: unknown; severity?: unknown };
  if (severity === undefined || typeof code !== 'string') return true;
  return /^(08|53|57)/.test(code);
}
