/**
 * The upstream client's public surface: what the domain layer and the CLI may call.
 * Implemented by ./vendor-client.ts; protocol modules (IMAP, SMTP) never see HTTP.
 */
import type { Readable } from 'node:stream';
import type { Lane } from './rate-limiter';
import type {
  Command,
  Recipient,
  CommandResult,
  SendRequest,
  SharedDomainList,
  VendorFolder,
  VendorMessage,
  VendorThread,
} from './types';

/** The vendor's message-wide fields a write sets. */
export interface VendorFlagChange {
  is_read?: boolean;
  is_starred?: boolean;
  is_important?: boolean;
}

/** Outcome of a write applied to many ids: which ids the vendor confirmed. */
export interface BulkResult {
  done: string[];
  notFound: string[];
}

export interface RawContent {
  stream: Readable;
  /** X-Original-Content-Type of the raw route. */
  contentType: string | null;
  length: number | null;
}

/** What list_threads lists: one folder, or every message carrying a label (assumption A22). */
export type ListScope = { folder: string } | { label: string };

/** list_folders: the folders and, where the vendor returns them (A21), the label names. */
export interface FolderList {
  folders: VendorFolder[];
  labels: string[] | null;
}

/** A whole message for the assumed send command (A8, with A27's attachments). */
export interface MailboxSend {
  messageId: string;
  to: Recipient[];
  cc: Recipient[];
  bcc: Recipient[];
  subject: string;
  html?: string;
  text?: string;
  inReplyTo?: string;
  references?: string[];
  replyTo?: string;
  attachments?: Array<{ filename: string; content: string; contentType: string; contentId?: string }>;
}

/**
 * One mailbox (one token pair). Every call goes through that mailbox's request gate in a lane
 * (rate-limiter.ts): pass the lane of whoever waits for the answer; each method's default is
 * named below.
 */
export interface MailboxApi {
  readonly mailbox: string;
  /**
   * Runs commands in requests of at most 20; results come back in the order given. Default
   * lane: `write` when any command is a write, else `sync`.
   */
  run(commands: Command[], lane?: Lane): Promise<CommandResult[]>;
  /** Default lane `poll`. */
  listFolders(lane?: Lane): Promise<VendorFolder[]>;
  /** Default lane `poll`. */
  folderList(lane?: Lane): Promise<FolderList>;
  /** One page of list_threads. Default lane `sync`. */
  listThreads(
    args: ListScope & { isRead?: boolean; limit?: number; cursor?: string | null },
    lane?: Lane,
  ): Promise<{ threads: VendorThread[]; nextCursor: string | null }>;
  /** Ids split into groups of 50, packed 20 commands a request, results matched back by id. Default lane `sync`. */
  getMessages(
    ids: string[],
    include?: string[],
    lane?: Lane,
  ): Promise<{ messages: VendorMessage[]; notFound: string[] }>;
  /**
   * The metadata of `ids` (get_messages with the metadata include), in lane `write` unless
   * told: what a caller reads after an OutcomeUnknownError to learn whether its write happened.
   */
  readBack(ids: string[], lane?: Lane): Promise<{ messages: VendorMessage[]; notFound: string[] }>;
  /**
   * Assumed search command (A4); all pages. Throws VendorError kind 'unsupported' if missing.
   * Default lane `content`: a client waits for the answer.
   */
  search(args: { query: string; folder?: string }, lane?: Lane): Promise<string[]>;
  /**
   * The writes (default lane `write`). A write whose answer was lost after it may have reached
   * the vendor throws OutcomeUnknownError naming the ids; it is never sent twice.
   */
  setFlags(ids: string[], change: VendorFlagChange, lane?: Lane): Promise<BulkResult>;
  label(ids: string[], change: { add?: string[]; remove?: string[] }, lane?: Lane): Promise<BulkResult>;
  move(ids: string[], folder: string, lane?: Lane): Promise<BulkResult>;
  /** The assumed send command (A8): one call for every recipient; answers the sent copy's uid. Lane `write`. */
  sendMessage(message: MailboxSend): Promise<{ messageUid: string }>;
  /**
   * Attachment bytes from GET /v1/raw, read whole within the request's retries (as every reader
   * keeps them whole anyway), then handed over as a stream. Default lane `content`.
   */
  raw(messageUid: string, attachmentId: string, lane?: Lane): Promise<RawContent>;
  /**
   * Attachment bytes from GET /v1/raw, read whole within the request's retries (a connection
   * lost mid-body is repeated like any transient failure); null when larger than `upTo` bytes.
   */
  rawBytes(messageUid: string, attachmentId: string, upTo: number, lane: Lane): Promise<Buffer | null>;
  /** Cheap authenticated call used by `doctor`; refreshes the token if needed. Lane `content`: a person waits. */
  verify(): Promise<void>;
}

export interface SendResult {
  id: string;
}

export interface ReleaseResult {
  id: string | null;
  body: Record<string, unknown>;
}

export interface VendorApi {
  mailbox(address: string): MailboxApi;
  /** POST {mail_url}/v3.0/send. Throws VendorError (code SPAM_DETECTED carries quarantine_id in details). */
  send(req: SendRequest): Promise<SendResult>;
  releaseQuarantine(quarantineId: string): Promise<ReleaseResult>;
  sharedDomains(): Promise<SharedDomainList>;
  createSender(args: { domain: string; localPart?: string; name?: string }): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}
