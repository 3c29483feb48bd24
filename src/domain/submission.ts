import type { MailAddress } from './message';

/**
 * Sending mail and releasing what the vendor's spam filter held, in the domain's terms: what
 * goes out through the Connector (connector.ts) and how the vendor may answer. The vendor
 * connector (upstream/vendor-connector.ts) turns these into its requests and its refusals into
 * these; nothing here is a vendor wire shape.
 */

export interface OutgoingAttachment {
  filename: string;
  content: Buffer;
  contentType: string;
  /** Without angle brackets. */
  contentId?: string;
}

/** One recipient's copy of a submission, sent from the connector's mailbox. */
export interface OutgoingCopy {
  /** The one address that gets this copy. */
  to: string;
  /** The display name the From header gave the mailbox. */
  senderName?: string;
  subject: string;
  html: string;
  text?: string;
  replyTo?: string;
  /** Headers every copy shows: To and Cc as submitted, Message-ID and the threading headers. */
  headers: Record<string, string>;
  attachments?: OutgoingAttachment[];
}

/** A whole message for every recipient at once, sent from the connector's mailbox. */
export interface OutgoingMessage {
  messageId: string;
  to: MailAddress[];
  cc: MailAddress[];
  bcc: MailAddress[];
  subject: string;
  html: string;
  text?: string;
  inReplyTo?: string;
  references?: string[];
  replyTo?: string;
  attachments?: OutgoingAttachment[];
}

/** A copy the vendor's spam filter stopped; releasable by its quarantine id while the vendor keeps it. */
export interface SubmissionHeld {
  /** Null when the vendor flagged the copy but could not keep it: nothing to release. */
  quarantineId: string | null;
  /** The vendor's id of what its filter detected. */
  detectionId: string | null;
  /** How long the vendor says the copy stays releasable, in its words ("3 hours"). */
  expiresIn: string | null;
}

/** A copy sent (the vendor's id of the sent email), or held by the spam filter. */
export type CopyOutcome = { sent: string } | { held: SubmissionHeld };

/**
 * Why the vendor did not take a submission:
 * - the bridge's send key: `send-key-missing` (none configured), `send-key-refused` (invalid or
 *   revoked), `send-key-blocked` (blocked for a while for policy violations);
 * - the vendor account: `account-blocked`, `no-credits`, `credits-unchecked` (the vendor could
 *   not check them), `user-unknown`, `not-privileged`, `account-refused` (any other account-level refusal);
 * - the bridge's address: `ip-blocked` (blocked for a while for policy violations);
 * - passing conditions: `rate`, `unavailable`, `vendor-failure` (an internal error of the vendor),
 *   `unreachable` (no answer at all);
 * - the message: `invalid`, `refused` (a refusal nobody anticipated).
 */
export type SubmissionRefusal =
  | 'send-key-missing'
  | 'send-key-refused'
  | 'send-key-blocked'
  | 'account-blocked'
  | 'no-credits'
  | 'credits-unchecked'
  | 'user-unknown'
  | 'not-privileged'
  | 'account-refused'
  | 'ip-blocked'
  | 'rate'
  | 'unavailable'
  | 'vendor-failure'
  | 'unreachable'
  | 'invalid'
  | 'refused';

/** A failure the vendor itself named: its code, and its own words when the reason alone does not say it all. */
abstract class VendorRefusal<R extends string> extends Error {
  constructor(
    readonly reason: R,
    /** The vendor's own name for the refusal, for the user and the log; null when the vendor did not answer. */
    readonly vendorCode: string | null,
    /** The vendor's explanation, kept only for refusals the reason does not fully describe. */
    readonly vendorWords: string | null,
    readonly cause?: unknown,
  ) {
    super(vendorWords ?? `${reason}${vendorCode ? ` (${vendorCode})` : ''}`);
  }
}

/** Every failure of a submission through the connector, except the bridge's own, is one of these. */
export class SubmissionRefused extends VendorRefusal<SubmissionRefusal> {
  override name = 'SubmissionRefused';
}

/**
 * Why a held copy was not released: `expired` (the vendor no longer keeps it), `limit-reached`
 * (too many releases; the account is under review), `forbidden` (another vendor account's),
 * `not-found` (unknown, or released already), `corrupt` (the vendor cannot read its copy),
 * `missing-id`, `unreachable` (no answer), `refused` (a refusal nobody anticipated).
 */
export type ReleaseRefusal =
  | 'expired'
  | 'limit-reached'
  | 'forbidden'
  | 'not-found'
  | 'corrupt'
  | 'missing-id'
  | 'unreachable'
  | 'refused';

/** Every failure of a release through the connector is one of these. */
export class ReleaseRefused extends VendorRefusal<ReleaseRefusal> {
  override name = 'ReleaseRefused';
}
