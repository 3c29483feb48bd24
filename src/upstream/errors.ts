/**
 * Every documented vendor error code (spec sections 5 and 7) as one typed error class.
 * `kind` tells callers how to react without knowing codes: protocol layers map kinds to
 * IMAP/SMTP answers.
 */

export type ErrorKind =
  | 'auth' // credentials wrong, revoked or missing: needs operator action
  | 'expired' // access token expired: refresh and repeat (handled inside the client)
  | 'rate' // over a rate limit: wait and retry
  | 'unavailable' // vendor temporarily down: retry later
  | 'account' // account-level refusal (blocked, no credits, privileges)
  | 'invalid' // request rejected as invalid
  | 'unsupported' // assumed command does not exist at this vendor
  | 'not_found'
  | 'forbidden'
  | 'gone'
  | 'limit'
  | 'spam'
  | 'internal'; // vendor-side failure

export const errorKinds: Record<string, ErrorKind> = {
  // reading interface (7.2) and auth (5)
  MISSING_AUTH_HEADER: 'auth',
  INVALID_TOKEN: 'auth',
  TOKEN_EXPIRED: 'expired',
  RATE_LIMITED: 'rate',
  AUTH_UNAVAILABLE: 'unavailable',
  INVALID_ARGS: 'invalid',
  INTERNAL: 'internal',
  // send and quarantine routes (7.1)
  INVALID_API_KEY: 'auth',
  ACCOUNT_BLOCKED: 'account',
  NO_CREDITS_LEFT: 'account',
  USER_NOT_FOUND: 'account',
  MISSING_USER_PRIVILEGES: 'account',
  EMAIL_CREDITS_NOT_FOUND: 'unavailable',
  CREDENTIAL_TEMPORARILY_BLOCKED: 'rate',
  IP_TEMPORARILY_BLOCKED: 'rate',
  MISSING_QUARANTINE_ID: 'invalid',
  RELEASE_LIMIT_REACHED: 'limit',
  QUARANTINE_FORBIDDEN: 'forbidden',
  QUARANTINE_NOT_FOUND: 'not_found',
  QUARANTINE_EXPIRED: 'gone',
  INTERNAL_SERVER_ERROR: 'internal',
  QUARANTINE_CORRUPT: 'internal',
  SPAM_DETECTED: 'spam',
};

export class VendorError extends Error {
  readonly kind: ErrorKind;
  constructor(
    readonly code: string,
    message: string,
    readonly httpStatus: number,
    /** Extra fields of the error body (e.g. quarantine_id of SPAM_DETECTED). */
    readonly details: Record<string, unknown> = {},
    kind?: ErrorKind,
  ) {
    super(`${code}: ${message}`);
    this.name = 'VendorError';
    this.kind = kind ?? errorKinds[code] ?? (httpStatus >= 500 ? 'internal' : 'invalid');
  }

  /** True when repeating the same request later may succeed. */
  get transient(): boolean {
    return this.kind === 'rate' || this.kind === 'unavailable' || this.kind === 'internal';
  }
}

/** Network-level failure (reset, timeout, DNS): no answer from the vendor's logic. */
export class TransportError extends Error {
  readonly kind: ErrorKind = 'unavailable';
  readonly transient = true;
  constructor(
    message: string,
    readonly cause?: unknown,
    /** False only when the request provably never left (no connection): safe to repeat even for writes. */
    readonly maybeSent = true,
    /** The vendor did not answer within the configured timeout (it stalls: asking again at once would stall too). */
    readonly timedOut = false,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

/** The account's refresh token is dead: the operator must add new tokens. */
export class NeedsNewTokensError extends Error {
  readonly kind: ErrorKind = 'auth';
  constructor(readonly mailbox: string) {
    super(
      `the vendor refused the refresh token of ${mailbox}; generate a new key pair in webmail settings, ` +
        `then run: mailbridge account add --mailbox ${mailbox} ` +
        '(it reads the pair from MAILBRIDGE_ACCESS_TOKEN/MAILBRIDGE_REFRESH_TOKEN or stdin)',
    );
    this.name = 'NeedsNewTokensError';
  }
}
