import type { Readable } from 'node:stream';
import type { MailMessage } from './message';
import type { CopyOutcome, OutgoingCopy, OutgoingMessage } from './submission';

/**
 * What the domain needs of a mail vendor, in the domain's own terms: the narrow interface a
 * vendor connector implements (upstream/vendor-connector.ts for the HTTP/JSON vendor; a fake in
 * the domain tests). Every call names who waits for it, so the connector can serve the person
 * waiting first within the vendor's limits. Nothing here is a vendor wire shape.
 */

/**
 * Who waits for a vendor call, highest first: a client waiting for content (a body, an
 * attachment, a search), a client's write, an incremental poll, a first sync or full
 * reconciliation, prefetch.
 */
export type Lane = 'content' | 'write' | 'poll' | 'sync' | 'prefetch';

export type FolderRole = 'inbox' | 'sent' | 'drafts' | 'trash' | 'spam' | 'archive' | null;

export interface MailFolder {
  name: string;
  role: FolderRole;
  /** The vendor's counts: what STATUS of a folder never synced answers. */
  total: number;
  unread: number;
}

export interface FolderListing {
  folders: MailFolder[];
  /** Every label name, or null when the vendor does not list them. */
  labels: string[] | null;
}

/** A vendor folder, or every message carrying a label. */
export type ListScope = { folder: string } | { label: string };

/** One page of a scope's messages, newest first. */
export interface MessagePage {
  ids: string[];
  /** Null on the last page. */
  nextCursor: string | null;
}

/** How much of a message to read: its flags and placement, or everything it is composed from. */
export type Detail = 'metadata' | 'content';

export interface Fetched {
  messages: MailMessage[];
  /** Ids the vendor does not have (any more). */
  notFound: string[];
}

/**
 * Fetched messages whose composing waits for downloads: the models the vendor gave (what a
 * sync lists and numbers them by) at once, the same messages composed once the downloads came.
 */
export interface LaterMessages {
  messages: MailMessage[];
  composed: Promise<MailMessage[]>;
}

/** Message-wide state a client can change; absent fields stay as they are. */
export interface FlagChange {
  seen?: boolean;
  flagged?: boolean;
  important?: boolean;
}

export interface LabelChange {
  add?: string[];
  remove?: string[];
}

/** Outcome of a write applied to many ids: which ids the vendor confirmed. */
export interface WriteResult {
  done: string[];
  notFound: string[];
}

export interface AttachmentContent {
  stream: Readable;
  contentType: string | null;
  length: number | null;
}

export interface Connector {
  /** The mailbox this connector reads and writes. */
  readonly mailbox: string;
  /**
   * Whether the vendor keeps listing a label no message carries any more; when it does not, a
   * label is renamed or deleted by moving it or taking it off message by message (label-folders.ts).
   */
  readonly labelsKeptEmpty: boolean;
  listFolders(lane?: Lane): Promise<FolderListing>;
  /** One page of what a scope holds: a sync lists pages until it has seen what changed. */
  listMessages(scope: ListScope, cursor: string | null, lane: Lane): Promise<MessagePage>;
  /**
   * With `partsAfter` (content only), messages whose composing downloads attachments (message/*
   * parts) are composed once it settles and come in `later`: a sync's downloads then take no
   * place in the vendor's window that its next list page needs.
   */
  getMessages(
    ids: string[],
    detail: Detail,
    lane: Lane,
    partsAfter?: Promise<unknown>,
  ): Promise<Fetched & { later?: LaterMessages }>;
  /**
   * The vendor's state (metadata) of `ids` after a write whose answer was lost: what tells
   * whether the write happened. Lane `write` unless told.
   */
  readBack(ids: string[], lane?: Lane): Promise<Fetched>;
  /** Ids of the messages whose text holds `text`, or null when the vendor cannot search. */
  search(text: string, folder: string | null, lane?: Lane): Promise<string[] | null>;
  /**
   * The writes. One whose answer was lost after it may have reached the vendor throws
   * OutcomeUnknownError naming the ids; it is never sent twice.
   */
  setFlags(ids: string[], change: FlagChange, lane?: Lane): Promise<WriteResult>;
  label(ids: string[], change: LabelChange, lane?: Lane): Promise<WriteResult>;
  move(ids: string[], folder: string, lane?: Lane): Promise<WriteResult>;
  /** An attachment's bytes, streamed. */
  attachment(messageId: string, attachmentId: string, lane?: Lane): Promise<AttachmentContent>;
  /**
   * Submission from this mailbox (submission.ts), never repeated here since a lost answer may
   * still have sent it: one recipient's copy, sent or held by the spam filter, or the whole
   * message at once, answered with the sent email's id. Both throw SubmissionRefused.
   */
  submit(copy: OutgoingCopy): Promise<CopyOutcome>;
  submitMessage(message: OutgoingMessage): Promise<string>;
}

/**
 * The vendor's spam quarantine. It belongs to the bridge's send key rather than to a mailbox:
 * a held copy is released by its id alone.
 */
export interface QuarantineConnector {
  /** Delivers the held copy; the delivered email's id when the vendor names it. Throws ReleaseRefused. */
  release(quarantineId: string): Promise<string | null>;
}

/**
 * Why a vendor call failed, in terms a client can act on:
 * - `tokens`: the account's tokens are dead, the operator must add new ones;
 * - `credentials`: the vendor refused the account (revoked key, blocked, no credits);
 * - `unsupported`: the vendor does not offer the operation;
 * - `not_found`: the vendor does not have what was named;
 * - `refused`: the vendor rejected the request as invalid; nothing was changed;
 * - `rate`: over the vendor's rate limit;
 * - `unavailable`: the vendor answered with a failure of its own;
 * - `unreachable`: no answer at all.
 */
export type ConnectorFailure =
  | 'tokens'
  | 'credentials'
  | 'unsupported'
  | 'not_found'
  | 'refused'
  | 'rate'
  | 'unavailable'
  | 'unreachable';

/** Every failure a connector throws, except OutcomeUnknownError, is one of these. */
export class ConnectorError extends Error {
  constructor(
    readonly failure: ConnectorFailure,
    /** The vendor's own name for the failure, for the client and the log. */
    readonly vendorCode: string,
    message: string,
    readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'ConnectorError';
  }
}

/**
 * A write whose answer was lost after the request may have reached the vendor. The domain
 * reads the messages back (settled-write.ts) instead of guessing or sending it again.
 */
export class OutcomeUnknownError extends Error {
  constructor(
    /** The write that may or may not have been applied (flag, label, move). */
    readonly command: string,
    /** Ids whose outcome is unknown. */
    readonly ids: string[],
    /** Ids of the same call the vendor did confirm, and those it did not know. */
    readonly settled: WriteResult,
    readonly cause: unknown,
  ) {
    super(
      `${command} of ${ids.length} message(s): the answer was lost after the request may have reached the vendor (${(cause as Error)?.message ?? cause})`,
    );
    this.name = 'OutcomeUnknownError';
  }
}
