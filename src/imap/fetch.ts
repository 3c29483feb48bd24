import { imapHandler } from '@zone-eu/wildduck/imap-core';
import type { AccountView, ImapFolder } from '../domain/account-view';
import { cloneImapStructure, compiledToken, isCompiledItem, type MimeTreeNode } from '../mime';
import type { MessageRow, MessageSummary, StoredMetadata } from '../store';
import type { ImapSession } from './session';

export interface FetchQueryItem {
  item: string;
  type?: string;
  path?: string;
  original?: unknown;
}

export interface FetchOptions {
  query: FetchQueryItem[];
  messages: number[];
  markAsSeen: boolean;
  metadataOnly: boolean;
  changedSince?: number;
  isUid: boolean;
}

/** Items answered from the UID row alone, without the cached MIME metadata. */
const rowItems = new Set(['uid', 'flags', 'modseq', 'internaldate', 'rfc822.size']);
/** Items answered from the stored summary (no MIME tree needed). */
const summaryItems = new Set(['envelope', 'bodystructure']);
/** Items whose answer streams message content (may pull attachment bytes from the vendor). */
const contentItems = new Set(['body', 'binary', 'rfc822', 'rfc822.text', 'binary.size']);

/** MIME nodes whose content a query streams: the whole message, or the addressed parts. */
function contentNodes(tree: MimeTreeNode, query: FetchQueryItem[]): MimeTreeNode[] {
  return query
    .filter((q) => contentItems.has(q.item) && !headerOnly.has(q.type ?? ''))
    .map((q) => (q.path ? resolvePart(tree, q.path) : tree))
    .filter((n): n is MimeTreeNode => !!n);
}

/** Section path "2.1" -> node, following message/rfc822 bodies like imap-core does. */
function resolvePart(tree: MimeTreeNode, partPath: string): MimeTreeNode | null {
  let node: MimeTreeNode | undefined = tree;
  for (const part of partPath.split('.')) {
    const base: MimeTreeNode | undefined = node?.message ?? node;
    node = base?.childNodes?.length ? base.childNodes[Number(part) - 1] : Number(part) === 1 ? base : undefined;
    if (!node) return null;
  }
  return node;
}

/** Body section types that never touch attachment bytes. */
const headerOnly = new Set(['header', 'header.fields', 'header.fields.not', 'mime']);

/** Messages handled per metadata batch: bounds memory on 1:* fetches of huge folders. */
const batchSize = 500;

function write(session: ImapSession, chunk: unknown): Promise<void> {
  return new Promise((resolve) => session.writeStream.write(chunk, resolve));
}

function rowValues(row: MessageRow): Record<string, unknown> {
  return { uid: row.uid, modseq: row.modseq, flags: row.flags, idate: row.idate, size: row.size };
}

type QueryOptions = { acceptUTF8Enabled: boolean } & Record<string, unknown>;

/** FETCH values from the full metadata (MIME tree and structures; cached, so copied before imap-core encodes them in place). */
function treeValues(session: ImapSession, query: FetchQueryItem[], row: MessageRow, meta: StoredMetadata | undefined, options: QueryOptions): unknown[] {
  const message = { ...rowValues(row), envelope: meta && cloneImapStructure(meta.envelope), bodystructure: meta && cloneImapStructure(meta.bodystructure), mimeTree: meta?.mimeTree };
  return session.getQueryResponse(query, message, options);
}

/** FETCH values with ENVELOPE/BODYSTRUCTURE copied as compiled wire text (mime/compiled-summary.ts). */
function summaryValues(session: ImapSession, query: FetchQueryItem[], row: MessageRow, summary: MessageSummary, options: QueryOptions): unknown[] {
  const rest = session.getQueryResponse(
    query.filter((q) => !isCompiledItem(q.item)),
    rowValues(row),
    options,
  );
  let i = 0;
  return query.map((q) => (isCompiledItem(q.item) ? compiledToken(summary.compiled, q.item, options.acceptUTF8Enabled) : rest[i++]));
}

/**
 * FETCH / UID FETCH. Flags, sizes, ENVELOPE and BODYSTRUCTURE come from the state store (no
 * vendor request once synced). Body sections are rebuilt from the cached MIME tree;
 * attachment bytes are downloaded before the response starts, so a vendor failure becomes a
 * NO instead of a truncated literal.
 */
export async function fetchMessages(view: AccountView, folder: ImapFolder, options: FetchOptions, session: ImapSession): Promise<void> {
  let rows = view.rows(folder, options.messages);
  if (options.changedSince) rows = rows.filter((r) => r.modseq > Number(options.changedSince));

  if (options.markAsSeen) {
    const unseen = rows.filter((r) => !r.flags.includes('\\Seen'));
    if (unseen.length) {
      const result = await view.updateFlags(folder, unseen, 'add', ['\\Seen'], session.id);
      if (result.error) throw result.error;
      const flags = new Map(result.updated.map((u) => [u.uid, u]));
      rows = rows.map((r) => (flags.has(r.uid) ? { ...r, flags: flags.get(r.uid)!.flags, modseq: flags.get(r.uid)!.modseq } : r));
    }
  }

  const needsMeta = options.query.some((q) => !rowItems.has(q.item));
  // ENVELOPE/BODYSTRUCTURE alone come from a small column; anything else needs the MIME tree
  const needsTree = options.query.some((q) => !rowItems.has(q.item) && !summaryItems.has(q.item));
  const needsContent = options.query.some((q) => contentItems.has(q.item) && !headerOnly.has(q.type ?? ''));
  const queryOptions = { acceptUTF8Enabled: session.isUTF8Enabled(), attachmentStorage: view.attachmentStorage, fetchOptions: {} };

  for (let i = 0; i < rows.length; i += batchSize) {
    const batch = rows.slice(i, i + batchSize);
    const ids = batch.map((r) => r.messageUid);
    const metas = needsTree ? await view.metadata(ids) : new Map<string, StoredMetadata>();
    const summaries = needsMeta && !needsTree ? await view.summaries(ids) : new Map<string, MessageSummary>();
    let written: Promise<void> = Promise.resolve();
    for (const row of batch) {
      const meta = metas.get(row.messageUid);
      const summary = summaries.get(row.messageUid);
      if (needsContent && meta?.mimeTree) for (const node of contentNodes(meta.mimeTree, options.query)) await view.prefetchAttachments(node);
      const values = summary ? summaryValues(session, options.query, row, summary, queryOptions) : treeValues(session, options.query, row, meta, queryOptions);
      const response = session.formatResponse('FETCH', row.uid, { query: options.query, values });
      if (!response) continue; // expunged from this session's view meanwhile
      // content streams one message at a time; short metadata answers are written in a row and
      // the batch waits for the last one, so at most one batch is buffered
      if (needsContent) await write(session, imapHandler.compileStream(response));
      else written = write(session, { compiled: imapHandler.compiler(response) });
    }
    await written;
  }
}
