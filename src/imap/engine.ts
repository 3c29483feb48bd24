import type { Socket } from 'node:net';
import type { FlagAction } from '../domain/flag-update';
import type { FetchQueryItem } from './fetch-query';
import type { SearchTerm } from './search';
import type { SortCriterion } from './sort';
import type { ThreadNode } from './thread';
import type { WireChunks } from './wire-chunks';

/**
 * The typed boundary between the IMAP engine (imap-core) and the bridge, in the spirit of
 * go-imap v2's `Session`: the engine asks a `MailboxBackend` one typed method per command and
 * the backend answers with typed results, a `MailboxRefused`, or any other error (which
 * becomes the command's NO through `toImapError`). Untagged data goes out through the
 * session's `UntaggedWriter`, which knows the wire syntax so the backend does not.
 * engine-adapter.ts is the one module that speaks imap-core's callback convention.
 */

/** SELECT/EXAMINE's QRESYNC parameter (RFC 7162 3.2.5), as the engine parsed it. */
export interface QresyncParameter {
  uidValidity: number;
  modseq: number;
}

/** The folder a session has selected, as the engine keeps it (it changes under EXPUNGE and new mail). */
export interface SelectedMailbox {
  /** The folder key the engine hands back to later commands (OpenedMailbox.key). */
  readonly mailbox: string;
  /** The UIDs of the session's view, in sequence order. */
  readonly uidList: number[];
  readonly condstoreEnabled?: boolean;
}

/** While SELECT or EXAMINE runs: which of the two it is, and its QRESYNC parameter. */
export interface Opening {
  readonly readOnly: boolean;
  readonly qresync?: QresyncParameter | null;
}

/** `* n FETCH (items)` responses written into large chunks (wire-chunks.ts), written out at each flush. */
export interface FetchLineWriter {
  /**
   * Starts `uid`'s response (`* n FETCH (`) and returns where its items are written; null (and
   * nothing started) when `uid` is not in the session's view.
   */
  begin(uid: number): WireChunks | null;
  /** Ends the response begun (`)` CRLF). */
  end(): void;
  /** Forgets the response begun. */
  drop(): void;
  /** Writes the responses ended since the last flush; resolves once written, null when there were none. */
  flush(): Promise<void> | null;
}

/** Writes the untagged responses a command sends before its tagged answer. */
export interface UntaggedWriter {
  /** `* n FETCH (UID u FLAGS (...) MODSEQ (m))`, each item left out when false; nothing when `uid` left the view. */
  fetchFlags(
    uid: number,
    values: { uid: number | false; flags: readonly string[] | false; modseq: number | false },
  ): void;
  /**
   * `* n FETCH (...)` of a query's values (as Session.fetchValues makes them); streamed when it
   * carries message content. Resolves once written; null when `uid` left the session's view.
   */
  fetchValues(uid: number, query: readonly FetchQueryItem[], values: unknown[], stream: boolean): Promise<void> | null;
  /** One FETCH command's responses whose items are already wire text (fetch-line.ts). */
  fetchLines(): FetchLineWriter;
  /**
   * `* n EXPUNGE` (or `* VANISHED u` under QRESYNC) of each UID, which leaves the view, led by
   * the REMOVEFROM of the search contexts that held them (RFC 5267 4.3); `silent` only updates
   * the view.
   */
  expunge(uids: readonly number[], silent?: boolean): void;
  /** `* VANISHED (EARLIER) ...` of those of `uids` the client's UID `set` names (RFC 7162 3.2.6). */
  vanishedEarlier(uids: readonly number[], set: string): void;
  /** FLAGS and PERMANENTFLAGS first when `flags` holds keywords the client was not told about yet. */
  keywords(flags: readonly string[]): void;
}

/** One IMAP session as the backend sees it. */
export interface Session {
  readonly id: string;
  /** The account logged in (AccountId spelling). */
  readonly account: string;
  readonly selected: SelectedMailbox | false;
  readonly opening: Opening | null;
  readonly untagged: UntaggedWriter;
  /** Whether the client enabled UTF8=ACCEPT. */
  utf8(): boolean;
  /** FETCH values the engine computes from a message's own values (imap-core's getQueryResponse). */
  fetchValues(
    query: readonly FetchQueryItem[],
    message: Record<string, unknown>,
    options: Record<string, unknown>,
  ): unknown[];
}

/**
 * The engine's own refusals, answered as a bare `NO [NONEXISTENT]` / `NO [TRYCREATE]` with the
 * engine's text: a folder named that is not there.
 */
export class MailboxRefused extends Error {
  constructor(readonly code: 'NONEXISTENT' | 'TRYCREATE') {
    super(code);
    this.name = 'MailboxRefused';
  }
}

export interface ListEntry {
  path: string;
  specialUse: string | null;
  flags: string[];
  delimiter: string;
}

/** STATUS values (RFC 3501 6.3.10, RFC 7162, RFC 8438 SIZE, RFC 8474 MAILBOXID). */
export interface MailboxStatus {
  messages: number;
  recent: number;
  uidNext: number;
  uidValidity: number;
  unseen: number;
  highestModseq: number;
  size?: number;
  mailboxId: string;
}

/** What SELECT/EXAMINE answers. */
export interface OpenedMailbox {
  /** The key later commands name the folder by (SelectedMailbox.mailbox). */
  key: string;
  recent: number;
  /** The sequence number of the first message without \Seen (OK [UNSEEN n]), 0 for none. */
  unseen: number;
  specialUse: string | null;
  uidValidity: number;
  uidNext: number;
  highestModseq: number;
  mailboxId: string;
  uids: number[];
  flags: string[];
  /** SELECT (QRESYNC ...): what the client missed, sent after the usual answer. */
  resync?: {
    vanished: number[];
    changed: Array<{ uid: number; flags: readonly string[]; modseq: number }>;
  };
}

export interface FetchOptions {
  query: FetchQueryItem[];
  messages: number[];
  markAsSeen: boolean;
  metadataOnly: boolean;
  changedSince?: number;
  isUid: boolean;
  /** UID FETCH ... (VANISHED) (QRESYNC): the command's UID set; false without the modifier. */
  vanished?: string | false;
}

export interface StoreUpdate {
  action: FlagAction;
  value: string[];
  messages: number[];
  silent: boolean;
  isUid?: boolean;
  unchangedSince?: number | false;
}

/** COPY/MOVE: the UIDs of the selected folder and where they go. */
export interface TransferUpdate {
  destination: string;
  messages: number[];
}

/** COPYUID (RFC 4315). */
export interface TransferUids {
  uidValidity: number;
  sourceUids: number[];
  destinationUids: number[];
}

export interface ExpungeUpdate {
  isUid: boolean;
  /** UID EXPUNGE's UIDs. */
  messages?: number[];
  /** CLOSE: the view changes without untagged EXPUNGE. */
  silent?: boolean;
}

/** The search keys as the engine parsed them (EMAILID and THREADID still to be resolved). */
export type SearchQuery = SearchTerm[];

/** The MODSEQ of a matched message by its UID. */
export interface ModseqLookup {
  get(uid: number): number | undefined;
}

export interface SearchResult {
  uidList: number[];
  highestModseq: number;
  /** Each match's MODSEQ by UID: ESEARCH with MIN or MAX alone answers those of the messages it returns. */
  modseqs?: ModseqLookup;
}

/** One message of a MULTIAPPEND: its flags, the client's INTERNALDATE if it gave one, its bytes. */
export interface AppendMessage {
  flags: string[];
  date: Date | undefined;
  message: Buffer;
}

/** One message of an APPEND with CATENATE (RFC 4469): its parts in order, a whole message as one TEXT part. */
export interface CatenateMessage {
  flags: string[];
  date: Date | undefined;
  parts: ReadonlyArray<{ url: string } | { text: Buffer; literal8: boolean }>;
  /** Binary input: its first part is a literal8, so binary parts are stored base64 encoded. */
  literal8: boolean;
}

export type ThreadAlgorithm = 'orderedsubject' | 'references';

/** A client connection as the listener sees it: the same object from connect to close. */
export interface Connection {
  readonly id: string;
  readonly remoteAddress: string;
  /** Set once logged in. */
  readonly user?: { id: string; username: string };
}

/** LOGIN and AUTHENTICATE PLAIN. */
export interface Login {
  method?: string;
  /** SASL PLAIN's authorization identity (RFC 4616); absent for LOGIN. */
  authzid?: string;
  username: string;
  password: string;
  connection?: { secure?: boolean; remoteAddress?: string };
}

/** A login's outcome: the account, a hand-over of the connection to another node, or wrong credentials (null). */
export type LoginAnswer =
  | { user: { id: string; username: string } }
  | { handOver(socket: Socket, tag: string, unread: Buffer): void }
  | null;

/** What the engine asks of the listener: connections admitted, logins checked. */
export interface ConnectionHost {
  /** A new connection; throws to refuse it (the error's message says why). */
  connect(connection: Connection): void;
  closed(connection: Connection): void;
  /** Throws an ImapError to answer NO with its code and text. */
  login(login: Login, connection: Connection): Promise<LoginAnswer>;
}

/**
 * What the engine asks of the bridge: one method per command. Like go-imap's optional session
 * interfaces, the optional methods are capabilities: the engine offers SORT and THREAD
 * (RFC 5256) only to a backend that implements them.
 */
export interface MailboxBackend {
  list(session: Session): Promise<ListEntry[]>;
  lsub(session: Session): Promise<ListEntry[]>;
  subscribe(session: Session, path: string): Promise<void>;
  unsubscribe(session: Session, path: string): Promise<void>;
  status(session: Session, path: string, items: readonly string[]): Promise<MailboxStatus>;
  create(session: Session, path: string): Promise<void>;
  rename(session: Session, path: string, newPath: string): Promise<void>;
  delete(session: Session, path: string): Promise<void>;
  /** SELECT and EXAMINE (session.opening tells which). */
  open(session: Session, path: string): Promise<OpenedMailbox>;
  /** `mailbox` is the selected folder's key; the FETCH responses go through session.untagged. */
  fetch(session: Session, mailbox: string, options: FetchOptions): Promise<void>;
  /** Returns the UIDs that failed UNCHANGEDSINCE (CONDSTORE's MODIFIED). */
  store(session: Session, mailbox: string, update: StoreUpdate): Promise<number[]>;
  copy(session: Session, mailbox: string, update: TransferUpdate): Promise<TransferUids>;
  move(session: Session, mailbox: string, update: TransferUpdate): Promise<TransferUids>;
  expunge(session: Session, mailbox: string, update: ExpungeUpdate): Promise<void>;
  append(
    session: Session,
    path: string,
    flags: string[],
    /** The client's INTERNALDATE, if it gave one. */
    date: Date | undefined,
    message: Buffer,
  ): Promise<{ uidValidity: number; uid: number }>;
  /** MULTIAPPEND (RFC 3502): every message stored, or none; their UIDs in the order given. */
  appendAll?(
    session: Session,
    path: string,
    messages: readonly AppendMessage[],
  ): Promise<{ uidValidity: number; uids: number[] }>;
  /**
   * CATENATE (RFC 4469): the messages built from their parts (URLs resolved) and stored, all or
   * none, none larger than `limit` bytes (APPEND's size limit).
   */
  catenate?(
    session: Session,
    path: string,
    messages: readonly CatenateMessage[],
    limit: number,
  ): Promise<{ uidValidity: number; uids: number[] }>;
  /**
   * SEARCH and SORT; `context` is a search context's own object (RETURN (UPDATE), RFC 5267
   * 4.3), the same at its first evaluation and every one after a change.
   */
  search(session: Session, mailbox: string, query: SearchQuery, context?: object): Promise<SearchResult>;
  sort?(
    session: Session,
    mailbox: string,
    query: SearchQuery,
    sort: SortCriterion[],
    context?: object,
  ): Promise<SearchResult>;
  thread?(
    session: Session,
    mailbox: string,
    query: SearchQuery,
    algorithm: ThreadAlgorithm,
  ): Promise<{ threads: ThreadNode[] }>;
  /** The session's \Recent count, which the engine announces as `* n RECENT` when it changed. */
  recentCount(session: Session): number;
  /** The IMAP name of the folder a journal key names (folderKey()), null once it is gone (NOTIFY's STATUS). */
  folderPath(session: Session, key: string): Promise<string | null>;
  /** The session ended (its connection closed). */
  close(session: Session): void;
}
