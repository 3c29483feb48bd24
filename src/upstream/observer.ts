/**
 * What the vendor connector reports about its own traffic, for metrics and readiness. The
 * connector only calls these; it knows nothing of Prometheus or of the HTTP listener.
 */

/** How one HTTP exchange with the vendor ended. */
export type RequestOutcome = 'success' | 'rate_limited' | 'client_error' | 'server_error' | 'transport_error';

/** Why a request is sent again. */
export type RetryReason = 'rate_limited' | 'token_expired' | 'transient';

/** A request gate (one per mailbox, one for the key routes): its queue as requests wait and start. */
export interface GateObserver {
  /** A request joined the queue; `depth` requests now wait. */
  onQueue(depth: number): void;
  /** A queued request got its slot after `waitMs`; `depth` requests still wait. */
  onStart(waitMs: number, depth: number): void;
}

export interface VendorObserver {
  /** One HTTP exchange ended. `route` is the URL path (ids travel in bodies and query strings, never in paths). */
  request(route: string, outcome: RequestOutcome, seconds: number): void;
  retry(reason: RetryReason): void;
  /** A mailbox request settled after its retries: the vendor answered it, or it failed for good. */
  mailboxResult(mailbox: string, error: Error | null): void;
  gate(name: string): GateObserver;
}

export const ignoreVendorTraffic: VendorObserver = {
  request: () => undefined,
  retry: () => undefined,
  mailboxResult: () => undefined,
  gate: () => ({ onQueue: () => undefined, onStart: () => undefined }),
};
