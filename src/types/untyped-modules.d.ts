// Minimal typings for untyped dependencies: only what mailbridge calls.
declare module 'libmime' {
  export function decodeWords(value: string): string;
  export function encodeWords(value: string, mimeWordEncoding?: 'Q' | 'B' | false, maxLength?: number): string;
}

declare module 'punycode.js' {
  export function toASCII(domain: string): string;
}

declare module '@mailbridge/imap-core' {
  import { EventEmitter } from 'node:events';
  import type { Server } from 'node:net';
  type SelectedMailbox = import('../imap/engine').SelectedMailbox;
  type Opening = import('../imap/engine').Opening;
  type FetchOptions = import('../imap/engine').FetchOptions;
  type StoreUpdate = import('../imap/engine').StoreUpdate;
  type TransferUpdate = import('../imap/engine').TransferUpdate;
  type ExpungeUpdate = import('../imap/engine').ExpungeUpdate;
  type SortCriterion = import('../imap/sort').SortCriterion;
  type ThreadAlgorithm = import('../imap/engine').ThreadAlgorithm;
  type SearchQuery = import('../imap/engine').SearchQuery;

  /** imap-core's answer convention: an error, or the results positionally (a string code refuses). */
  export type HookCallback = (err: Error | null, ...results: unknown[]) => void;

  /** A session object as imap-core's connection makes it (`_startSession`, with mailbridge's additions). */
  export interface CoreSession {
    id: string;
    remoteAddress: string;
    /** Set once logged in. */
    user?: { id: string; username: string };
    selected: SelectedMailbox | false;
    /** While SELECT or EXAMINE runs its hook: which of the two, and its QRESYNC parameter. */
    opening?: Opening | null;
    writeStream: { write(chunk: unknown, callback?: () => void): boolean };
    formatResponse(command: string, uid: number, data?: Record<string, unknown>): unknown;
    announceKeywords(flags: readonly string[]): void;
    /** REMOVEFROM of the search contexts holding any of `uids`, before their EXPUNGE (RFC 5267 4.3). */
    announceExpunged(uids: readonly number[]): void;
    getQueryResponse(
      query: readonly unknown[],
      message: Record<string, unknown>,
      options: Record<string, unknown>,
    ): unknown[];
    isUTF8Enabled(): boolean;
    earlierVanished(uids: readonly number[], set: string): unknown;
    /** NOTIFY (RFC 5465): messages of a mailbox other than the selected one changed. */
    notifyMailbox(path: string, events: readonly string[]): void;
    /** NOTIFY: a mailbox was created, deleted or renamed. */
    notifyMailboxName(change: { path: string; oldPath?: string; deleted?: boolean }): void;
  }

  export class IMAPServer extends EventEmitter {
    constructor(options: Record<string, unknown>);
    server: Server;
    options: Record<string, unknown>;
    /** Open client connections. */
    connections: Set<unknown>;
    notifier: unknown;
    listen(port: number, host: string, callback: () => void): void;
    close(callback: () => void): void;

    // the hooks imap-core calls; a command whose hook is missing is not offered
    onConnect?(session: CoreSession, callback: (err?: Error) => void): void;
    onClose?(session: CoreSession, callback: () => void): void;
    onAuth?(
      login: import('../imap/engine').Login,
      session: CoreSession,
      callback: (err: Error | null, answer?: import('../imap/engine').LoginAnswer) => void,
    ): void;
    onList?(query: string, session: CoreSession, callback: HookCallback): void;
    onLsub?(query: string, session: CoreSession, callback: HookCallback): void;
    onSubscribe?(path: string, session: CoreSession, callback: HookCallback): void;
    onUnsubscribe?(path: string, session: CoreSession, callback: HookCallback): void;
    onStatus?(path: string, items: string[], session: CoreSession, callback: HookCallback): void;
    onCreate?(path: string, session: CoreSession, callback: HookCallback): void;
    onRename?(path: string, newPath: string, session: CoreSession, callback: HookCallback): void;
    onDelete?(path: string, session: CoreSession, callback: HookCallback): void;
    onOpen?(path: string, session: CoreSession, callback: HookCallback): void;
    onFetch?(mailbox: string, options: FetchOptions, session: CoreSession, callback: HookCallback): void;
    onStore?(mailbox: string, update: StoreUpdate, session: CoreSession, callback: HookCallback): void;
    onCopy?(
      connection: unknown,
      mailbox: string,
      update: TransferUpdate,
      session: CoreSession,
      callback: HookCallback,
    ): void;
    onMove?(mailbox: string, update: TransferUpdate, session: CoreSession, callback: HookCallback): void;
    onExpunge?(mailbox: string, update: ExpungeUpdate, session: CoreSession, callback: HookCallback): void;
    onAppend?(
      path: string,
      flags: string[],
      date: string | Date | undefined,
      message: Buffer,
      session: CoreSession,
      callback: HookCallback,
    ): void;
    /** MULTIAPPEND (RFC 3502): answers `[true, {uidValidity, uids}]`, every message stored or none. */
    onMultiAppend?(
      path: string,
      messages: Array<{ flags: string[]; date: string | undefined; raw: Buffer }>,
      session: CoreSession,
      callback: HookCallback,
    ): void;
    /** CATENATE (RFC 4469): answers `[true, {uidValidity, uids}]`, every message built and stored or none. */
    onCatenate?(
      path: string,
      messages: Array<{
        flags: string[];
        date: string | undefined;
        parts: Array<{ url: string } | { text: Buffer; literal8: boolean }>;
        literal8: boolean;
      }>,
      session: CoreSession,
      callback: HookCallback,
    ): void;
    /** `context`: a search context's own object, with RETURN (UPDATE) (imap-core 121). */
    onSearch?(
      mailbox: string,
      options: { query: SearchQuery; context?: object },
      session: CoreSession,
      callback: HookCallback,
    ): void;
    onSort?(
      mailbox: string,
      options: { query: SearchQuery; sort: SortCriterion[]; context?: object },
      session: CoreSession,
      callback: HookCallback,
    ): void;
    onThread?(
      mailbox: string,
      options: { query: SearchQuery; algorithm: ThreadAlgorithm },
      session: CoreSession,
      callback: HookCallback,
    ): void;
    /** The selected session's \Recent count, announced as `* n RECENT` when it changed. */
    onRecentCount?(session: CoreSession): number;
    /** NOTIFY SET (what it asked, opaque here) or NOTIFY NONE (null); NOTIFY is offered only with this hook. */
    onNotify?(spec: unknown, session: CoreSession): void;
  }

  export const imapHandler: {
    compileStream(response: unknown): NodeJS.ReadableStream;
    compiler(response: unknown): string;
  };
}

declare module '@mailbridge/imap-core/lib/commands/search.js' {
  const search: {
    parseQueryTerms(
      terms: string[],
      uidList: number[],
    ): { query: import('../imap/search').SearchTerm[]; terms: string[] };
  };
  export default search;
}

declare module '@mailbridge/imap-core/lib/imap-tools' {
  /** Builds the FETCH values of `query` for one message, as a session does. */
  export function getQueryResponse(
    query: Array<{ item: string }>,
    message: Record<string, unknown>,
    options: Record<string, unknown>,
  ): unknown[];
}

declare module '@mailbridge/imap-core/lib/object-ids' {
  /** Whether imap-core writes the value as an OBJECTID (RFC 8474), else NIL. */
  export function isObjectId(value: unknown): value is string;
}

declare module '@mailbridge/imap-core/lib/errors' {
  /** Where the engine's unexpected exceptions go (imap-core's lib/errors.js). */
  export function setReporter(report: (err: Error | undefined, meta: Record<string, unknown>) => void): void;
}

declare module '@mailbridge/imap-core/lib/handler/imap-compiler' {
  /** imap-core's response compiler (also imapHandler.compiler), without loading the server. */
  function compiler(response: unknown): string;
  export = compiler;
}

declare module '@mailbridge/imap-core/lib/indexer/parse-mime-tree' {
  /** imap-core's MIME parser: parse() and the parser class whose header handling the bridge reuses. */
  interface ParserNode {
    header: string[];
    parsedHeader: Record<string, unknown>;
    multipart: string | false;
    boundary: string | false;
  }
  interface ParseMimeTree {
    (rfc822: Buffer | string): unknown;
    MIMEParser: new (
      rfc822: Buffer | string,
    ) => {
      _node: ParserNode;
      processNodeHeader(): void;
      processContentType(): void;
      /** 'text/plain; charset=utf-8' -> {value, type, subtype, params, hasParams} */
      parseValueParams(value: string): Record<string, unknown>;
    };
    /** The fields of which a parsed header keeps one value, the last one given. */
    SINGLE_VALUED_FIELDS: readonly string[];
  }
  const parse: ParseMimeTree;
  export = parse;
}

declare module '@mailbridge/imap-core/lib/indexer/create-envelope' {
  /** ENVELOPE of a parsed header (the indexer's getEnvelope). */
  function createEnvelope(parsedHeader: Record<string, unknown>): unknown[];
  export = createEnvelope;
}

declare module '@mailbridge/imap-core/lib/indexer/source-routes' {
  /** Gives each address addressparser made from an angle-addr with a source route its `route` (in place). */
  function withSourceRoutes<T>(text: string, addresses: T[]): T[];
  export = withSourceRoutes;
}

declare module '@mailbridge/imap-core/lib/binary' {
  /** A part's content with its Content-Transfer-Encoding undone (RFC 3516); throws code 'UNKNOWN-CTE'. */
  export function decodeContent(node: import('../mime').MimeTreeNode | null, encoded: Buffer | string): Buffer;
}

declare module '@mailbridge/imap-core/lib/indexer/binary-to-base64' {
  /** A message given as a literal8 with its binary parts base64 encoded (RFC 3516 4.4, as Dovecot stores them). */
  function binaryToBase64(raw: Buffer): Promise<Buffer>;
  export = binaryToBase64;
}
