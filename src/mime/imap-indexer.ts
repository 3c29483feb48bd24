import type { Readable } from 'node:stream';

/**
 * Typed view of imap-core's indexer (untyped JS). Only the calls mailbridge makes are listed;
 * shapes follow node_modules/@mailbridge/imap-core/lib/indexer/*.js.
 */

/** One node of the indexer's parsed MIME tree. Leaves carry `body`, or `attachmentId` when external. */
export interface MimeTreeNode {
  rootNode?: boolean;
  /** Raw header lines, folded lines joined with CRLF. */
  header: string[];
  parsedHeader: Record<string, unknown>;
  body?: Buffer | false;
  /** Encoded byte length of the body (also for external nodes). */
  size?: number;
  lineCount?: number;
  multipart?: string | false;
  boundary?: string | false;
  childNodes?: MimeTreeNode[];
  message?: MimeTreeNode;
  /** Set on attachment leaves whose bytes live outside the tree (see attachment-storage.ts). */
  attachmentId?: string;
  /** What the parser kept of a multipart's delimiter lines: padding after them, the epilogue. */
  delimiterPadding?: string;
  closePadding?: string;
  epilogue?: Buffer;
  /** Stand-in attachment ids (WildDuck's deduplication; mailbridge's trees have none). */
  attachmentMap?: Record<string, string>;
}

/** What `attachmentStorage.get` resolves to; an empty `metadata` makes rebuild trust `node.size`. */
export interface StoredAttachmentInfo {
  contentType: string;
  transferEncoding: string;
  length: number;
  count: number;
  hash: string;
  metadata: Record<string, unknown>;
}

/** Byte window of an external node's encoded content; maxLength 0 means "to the end". */
export interface ReadBounds {
  startFrom: number;
  maxLength: number;
}

export interface ImapAttachmentStorage {
  get(attachmentId: string): Promise<StoredAttachmentInfo>;
  createReadStream(
    attachmentId: string,
    info: StoredAttachmentInfo,
    bounds: ReadBounds,
  ): Readable & { outputBytes?: number };
}

export interface ContentSelector {
  path?: string;
  type?: string;
  headers?: string[];
}

export interface ContentResult {
  type: 'stream';
  value: Readable;
  expectedLength: number;
}

/** The readable text of a message, decoded (transfer encoding, charset, format=flowed). */
export interface Maildata {
  text: string;
  html: string[];
}

export interface Indexer {
  parseMimeTree(rfc822: Buffer | string): MimeTreeNode;
  /** Also takes the attachment bodies out of the tree it is given. */
  getMaildata(tree: MimeTreeNode): Maildata;
  getSize(tree: MimeTreeNode, textOnly?: boolean): number;
  getBodyStructure(tree: MimeTreeNode): unknown[];
  getEnvelope(tree: MimeTreeNode): unknown[];
  /** The node a part number ("1.2") names, or false. */
  resolveContentNode(tree: MimeTreeNode, path: string): MimeTreeNode | false;
  getContents(
    tree: MimeTreeNode,
    selector?: ContentSelector | false,
    options?: { startFrom?: number; maxLength?: number },
  ): ContentResult | string;
}

type IndexerConstructor = new (options?: { attachmentStorage?: ImapAttachmentStorage }) => Indexer;

// eslint-disable-next-line @typescript-eslint/no-require-imports
const IndexerClass = require('@mailbridge/imap-core/lib/indexer/indexer') as IndexerConstructor;

export function createIndexer(attachmentStorage?: ImapAttachmentStorage): Indexer {
  return new IndexerClass(attachmentStorage ? { attachmentStorage } : {});
}
