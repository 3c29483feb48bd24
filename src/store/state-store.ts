import type { MetadataRecord } from '../mime';
import type { MessageKey, MessageKeys } from '../mime/message-keys';
import type { MailMessage } from '../domain/message';
import type { FolderState, MessageRow, MessageSummary, NewMessage, UidChange } from '../model/mail-rows';
import type { QuarantineRecord, QuarantineStatus } from '../model/quarantine-record';
import type { StoredAccount, TokenPair } from '../model/tokens';

/**
 * What the domain and the protocol layers need from the bridge's state, apart from where it is
 * kept: SQLite in the state directory (the default, ./mail-store.ts and its neighbours) or
 * PostgreSQL shared by several bridge nodes (./pg).
 *
 * Reads and writes are synchronous, as the domain has always called them: the PostgreSQL store
 * keeps the state of the accounts this node owns in an in-memory mirror and sends each write
 * to PostgreSQL afterwards; the SQLite store commits without waiting for the disk and flushes its
 * WAL off the event loop (./wal-durability.ts). Two calls make that safe. `afterCommit` runs its
 * callback once every write made so far is durable, so changes are published only after they are
 * stored; `committed` is awaited before a client is told OK. Both release in call order, and the
 * writes of one turn of the event loop become durable together: a command's OK comes on the turn
 * the changes it made are published, before any session's listener hears of them.
 */
export interface Durability {
  /** Runs `fn` once every write made so far is durable, in call order. */
  afterCommit(fn: () => void): void;
  /**
   * Resolves once every write made so far is durable; rejects if one was refused or the store
   * is unreachable (./store-errors.ts). With `account`, only a refusal of that account's writes.
   */
  committed(account?: string): Promise<void>;
}

/** The IMAP state of every account: UID maps, MODSEQs, flags, tombstones, cached messages. */
export interface MailState extends Durability {
  /** Drafts and submissions, kept beside the UID maps that point at them. */
  readonly local: LocalState;
  folderState(account: string, folder: string): FolderState;
  assignUids(account: string, folder: string, messages: ReadonlyArray<NewMessage | string>): UidChange[];
  listMessages(account: string, folder: string): MessageRow[];
  /**
   * The folder's rows by ascending UID as one list shared by every caller: never changed, a
   * change of the folder makes a new list. Reads that keep nothing of it use this, not a copy.
   */
  folderSnapshot(account: string, folder: string): readonly MessageRow[];
  getByUids(account: string, folder: string, uids: readonly number[]): MessageRow[];
  rowsByMessageUid(account: string, folder: string, messageUids: readonly string[]): MessageRow[];
  atomically<T>(fn: () => T): T;
  rowsEverywhere(account: string, messageUids: readonly string[]): Array<{ folder: string; row: MessageRow }>;
  markListed(account: string, folder: string): void;
  /** The folder's UID map ends: a folder of the same name is numbered afresh, under a greater UIDVALIDITY. */
  retireFolder(account: string, folder: string): void;
  listedFolders(account: string): string[];
  uidNextAtLeast(account: string, folder: string, uidNext: number): void;
  wasListed(account: string, folder: string): boolean;
  setFlags(account: string, folder: string, uids: number | readonly number[], flags: readonly string[]): number;
  expunge(account: string, folder: string, messageUids: readonly string[]): UidChange[];
  vanishedSince(account: string, folder: string, modseq: number): { complete: boolean; uids: number[] };
  unconvertible(account: string, messageUids: readonly string[]): string[];
  putMetadataRecords(account: string, records: readonly MetadataRecord[]): void;
  getSummaries(account: string, messageUids: readonly string[]): Map<string, MessageSummary>;
  getHeaders(account: string, messageUids: readonly string[]): Map<string, string[]>;
  getMessages(account: string, messageUids: readonly string[]): Map<string, MailMessage>;
  getThreadIds(account: string, messageUids: readonly string[]): Map<string, string>;
  getMessageKeys(
    account: string,
    messageUids: readonly string[],
    keys: readonly MessageKey[],
    folder?: string,
  ): Map<string, Partial<MessageKeys>>;
  putMessageKeys(account: string, entries: ReadonlyMap<string, MessageKeys>): void;
  pruneMetadata(account: string): number;
}

/**
 * A label folder only the bridge knows: created by a client before any message carries the
 * label (`renamedFrom` null), or the target of a rename still moving messages from `renamedFrom`.
 */
export interface LocalLabel {
  label: string;
  renamedFrom: string | null;
}

/**
 * Messages only the bridge holds (drafts), the Message-IDs submitted through its SMTP, and the
 * label folders the vendor does not have yet.
 */
export interface LocalState {
  add(account: string, raw: Buffer): string;
  /** Keeps `raw` under an id the caller chose (held submissions); the first bytes stored stay. */
  put(account: string, messageUid: string, raw: Buffer): void;
  get(account: string, messageUid: string): { raw: Buffer; createdAt: Date } | null;
  remove(account: string, messageUids: string[]): void;
  recordSubmission(account: string, messageId: string): void;
  wasSubmitted(account: string, messageId: string): boolean;
  /** The account's local label folders, by label name. */
  labels(account: string): LocalLabel[];
  /** Records a label folder (replacing one of the same name). */
  putLabel(account: string, label: string, renamedFrom: string | null): void;
  removeLabel(account: string, label: string): void;
}

/** Submissions the vendor's spam filter held. */
export interface QuarantineLog {
  record(r: Omit<QuarantineRecord, 'status' | 'detail'>): void;
  get(quarantineId: string): QuarantineRecord | null;
  list(): QuarantineRecord[];
  countByState(now: Date): Record<QuarantineStatus, number>;
  markReleased(quarantineId: string, emailId: string | null): void;
  /** A refused release of a held record: its status from now on (held, expired, released) and the refusal. */
  markRefused(quarantineId: string, status: QuarantineStatus, refusal: string): void;
}

/**
 * Vendor token pairs and bridge-password hashes. Writes may be asynchronous (PostgreSQL): a
 * caller awaits them, so a rotated refresh token is durable before the access token is used.
 */
export interface TokenVault {
  get(mailbox: string): StoredAccount | undefined;
  mailboxes(): string[];
  putTokens(mailbox: string, pair: TokenPair): void | Promise<void>;
  remove(mailbox: string): boolean | Promise<boolean>;
  markNeedsNewTokens(mailbox: string, reason: string): void | Promise<void>;
  setBridgePassword(mailbox: string): string | Promise<string>;
  verifyBridgePassword(mailbox: string, password: string): Promise<boolean>;
  /** Reads the records again where `get` may lag behind another process's writes (PostgreSQL). */
  reread?(): Promise<void>;
}

export interface OwnershipEvents {
  /** This node serves the account from now on (its state is loaded). */
  gained(mailbox: string): void;
  /** Another node serves it now, or it is no longer wanted ('given up'): stop serving it. */
  lost(mailbox: string, change: Exclude<LeaseChange, 'gained'>): Promise<void>;
}

/**
 * Which accounts this node serves. SQLite: every wanted one, at once. PostgreSQL: those whose
 * lease it holds, spread over the nodes alive, each account on exactly one node.
 */
export interface Ownership {
  /** Tells the other nodes where this node's listeners are (host:port), to forward clients to it. */
  advertise(addresses: { imap: string | null; smtp: string | null }): void;
  /** The listeners of the node serving the mailbox, when that is another node. */
  ownerOf(mailbox: string): Promise<{ imap: string | null; smtp: string | null } | null>;
  /** Resolves after the first look: the accounts this node could take are served. */
  start(wanted: () => string[], events: OwnershipEvents): Promise<void>;
  /** Looks again now (the wanted accounts changed). */
  review(): Promise<void>;
  /** Stops serving every account and gives the leases up. */
  stop(): Promise<void>;
}

/** How a lease changed hands, as the log and the metrics name it. */
export type LeaseChange = 'gained' | 'lost' | 'handed over' | 'given up';

/** A node's view of the store several nodes share and of its leases (PostgreSQL only). */
export interface NodeHealth {
  /** Whether the store answered the node's last look: false, the node cannot confirm its leases. */
  storeUp(): boolean;
  /** How long the last answered look took, in seconds; null before one was. */
  storeRoundTripSeconds(): number | null;
  /** Mailboxes whose lease the node holds. */
  leasesHeld(): number;
  /** Lease changes since start, by kind. */
  leaseChanges(): ReadonlyMap<LeaseChange, number>;
}

/** Everything the daemon keeps, from one backend. */
export interface StateStore {
  readonly mail: MailState;
  readonly ownership: Ownership;
  readonly quarantine: QuarantineLog;
  readonly secrets: TokenVault;
  /** Null on SQLite: one node, no leases. */
  readonly node: NodeHealth | null;
  /**
   * Resolves when a change of the mailbox can be stored now: rejects (store-errors.ts) while the
   * store is unreachable or this node no longer holds the mailbox. Asked before each vendor write.
   */
  writable(mailbox: string): Promise<void>;
  /**
   * Throws FencedError unless this node may still write the mailbox at the vendor, on its own
   * clock (no round trip): checked again as a vendor write is sent, which may be long after
   * `writable` (a write waits its turn in the vendor's rate limits).
   */
  assertHeld(mailbox: string): void;
  /** Resolves once every write so far, of any part, is durable (see Durability.committed). */
  committed(account?: string): Promise<void>;
  close(): Promise<void>;
}
