import { errorKinds, TransportError, VendorError } from './errors';
import type { CommandResult } from './types';
import type { Clock } from '../util/clock';

/**
 * When a failed vendor call is repeated. 429 pauses the mailbox for Retry-After and repeats.
 * Reads (list_*, get_messages, search) also repeat transient failures (5xx, resets,
 * command-level INTERNAL) with backoff, but not a timeout: a stalled vendor is reported within
 * the configured timeout. Writes are repeated only after answers proving the vendor did
 * nothing (429, AUTH_UNAVAILABLE, no connection): a write that may have been applied is never
 * sent twice. (An expired token is the caller's Recovery: authorized-calls.ts.)
 */

const maxRateLimitRetries = 5;
export const maxTransientRetries = 3;

/** 200, 400, 800 ms plus jitter, so that callers failing together do not retry together. */
export const backoff = (attempt: number) => 200 * 2 ** attempt + Math.random() * 100;

export function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((r) => clock.after(ms, r));
}

/** A failed command result that may succeed when repeated (INTERNAL and the like). */
export function transientResult(r: CommandResult): boolean {
  if (r.type === 'SUCCESS' || !r.code) return false;
  const kind = errorKinds[r.code];
  return kind === 'internal' || kind === 'unavailable';
}

/** The next attempt after a failure: after a pause of the whole mailbox (429), or after a backoff. */
export type Retry = { kind: 'rate'; seconds: number } | { kind: 'transient'; attempt: number; delayMs: number };

/** The retries one call has left. */
export class RetryBudget {
  private rateRetries = 0;
  private transientRetries = 0;

  /** @param idempotent a read, which may be repeated after any transient failure */
  constructor(private readonly idempotent: boolean) {}

  /** How to try again after `err`, or null when the call fails with it. */
  after(err: unknown): Retry | null {
    if (err instanceof VendorError && err.kind === 'rate' && this.rateRetries++ < maxRateLimitRetries) {
      return { kind: 'rate', seconds: Number(err.details.retryAfterSeconds) || 1 };
    }
    const neverApplied =
      (err instanceof VendorError && err.code === 'AUTH_UNAVAILABLE') ||
      (err instanceof TransportError && !err.maybeSent);
    // a vendor that let the timeout pass stalls: the caller hears so within the timeout, not after every retry's
    const transient =
      (err instanceof VendorError || err instanceof TransportError) &&
      err.transient &&
      !(err instanceof TransportError && err.timedOut);
    if (transient && (this.idempotent || neverApplied) && this.transientRetries < maxTransientRetries) {
      const attempt = this.transientRetries++;
      return { kind: 'transient', attempt: attempt + 1, delayMs: backoff(attempt) };
    }
    return null;
  }
}
