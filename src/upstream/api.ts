/**
 * The upstream client's public surface: what the domain layer and the CLI may call.
 * Implemented by ./vendor-client.ts; protocol modules (IMAP, SMTP) never see HTTP.
 */
import type { Readable } from 'node:stream';
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

export interface FlagChange {
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

/** A whole message for the assumed send command (A8, with A26's attachments). */
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

/** One mailbox (one token pair). Every call goes through that mailbox's limiter. */
export interface MailboxApi {
  readonly mailbox: string;
  /** Runs commands in requests of at most 20; results come back in the order given. */
  run(commands: Command[]): Promise<CommandResult[]>;
  listFolders(): Promise<VendorFolder[]>;
  folderList(): Promise<FolderList>;
  /** One page of list_threads. */
  listThreads(
    args: ListScope & { isRead?: boolean; limit?: number; cursor?: string | null },
  ): Promise<{ threads: VendorThread[]; nextCursor: string | null }>;
  /** Every thread of a folder, following the cursor to the end. */
  listAllThreads(folder: string): Promise<VendorThread[]>;
  /** Ids split into groups of 50, packed 20 commands a request, results matched back by id. */
  getMessages(ids: string[], include?: string[]): Promise<{ messages: VendorMessage[]; notFound: string[] }>;
  /** Assumed search command (A4); all pages. Throws VendorError kind 'unsupported' if missing. */
  search(args: { query: string; folder?: string }): Promise<string[]>;
  setFlags(ids: string[], change: FlagChange): Promise<BulkResult>;
  label(ids: string[], change: { add?: string[]; remove?: string[] }): Promise<BulkResult>;
  move(ids: string[], folder: string): Promise<BulkResult>;
  /** The assumed send command (A8): one call for every recipient; answers the sent copy's uid. */
  sendMessage(message: MailboxSend): Promise<{ messageUid: string }>;
  /** Attachment bytes from GET /v1/raw, streamed. */
  raw(messageUid: string, attachmentId: string): Promise<RawContent>;
  /** Cheap authenticated call used by `doctor`; refreshes the token if needed. */
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
