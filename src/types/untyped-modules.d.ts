// Minimal typings for untyped dependencies: only what mailbridge calls.
declare module 'libmime' {
  export function decodeWords(value: string): string;
  export function encodeWords(value: string, mimeWordEncoding?: 'Q' | 'B' | false, maxLength?: number): string;
}

declare module '@mailbridge/imap-core' {
  import { EventEmitter } from 'node:events';
  import type { Server } from 'node:net';

  export class IMAPServer extends EventEmitter {
    constructor(options: Record<string, unknown>);
    server: Server;
    options: Record<string, unknown>;
    /** Open client connections. */
    connections: Set<unknown>;
    notifier: unknown;
    listen(port: number, host: string, callback: () => void): void;
    close(callback: () => void): void;
    [hook: string]: unknown;
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
    };
  }
  const parse: ParseMimeTree;
  export = parse;
}

declare module '@mailbridge/imap-core/lib/binary' {
  /** A part's content with its Content-Transfer-Encoding undone (RFC 3516); throws code 'UNKNOWN-CTE'. */
  export function decodeContent(node: import('../mime').MimeTreeNode | null, encoded: Buffer | string): Buffer;
}
