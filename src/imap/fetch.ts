import type { AccountView } from '../domain/account-view';
import type { ImapFolder } from '../domain/mailbox-map';
import {
  attachmentsRead,
  compiledToken,
  externalAttachments,
  externalId,
  isCompiledItem,
  type MimeTreeNode,
} from '../mime';
import type { MessageRow, MessageSummary } from '../store';
import { bodyLiteral } from '../mime/message-literal';
import { fetchLines, isLineQuery, readsContent, type MessageBytes } from './fetch-line';
import { binarySections, isBinaryItem } from './binary';
import { emailId, threadId } from './object-ids';
import type { FetchQueryItem } from './fetch-query';
import { RecentMessages } from './recent';
import type { FetchOptions, Session } from './engine';

/** Items answered from the UID row (and THREADID its stored thread), without the cached MIME metadata. */
const rowItems = new Set(['uid', 'flags', 'modseq', 'internaldate', 'rfc822.size', 'emailid', 'threadid']);
/** Items whose answer streams message content (may pull attachment bytes from the vendor). */
const contentItems = new Set(['body', 'binary', 'rfc822', 'rfc822.text', 'binary.size']);

/**
 * External attachments a query's answer streams: those inside the addressed parts, or for a
 * partial read only those its byte window reaches.
 */
async function attachmentsToServe(tree: MimeTreeNode, query: FetchQueryItem[]): Promise<string[]> {
  const ids: string[] = [];
  for (const q of query) {
    if (!contentItems.has(q.item) || headerOnly.has(q.type ?? '')) continue;
    if (q.item === 'body' && q.partial) {
      const whole = !q.path && q.type === 'content';
      ids.push(
        ...(await attachmentsRead(tree, whole ? false : { path: q.path, type: q.type }, {
          startFrom: q.partial.startFrom,
          maxLength: q.partial.maxLength ?? 0,
        })),
      );
      continue;
    }
    const node = q.path ? resolvePart(tree, q.path) : tree;
    if (node) ids.push(...externalAttachments(node).map(externalId));
  }
  return [...new Set(ids)];
}

/**
 * The largest message (RFC822.SIZE) a whole-message FETCH answers from bytes made in memory
 * at once; a larger one streams through imap-core, whose reads wait for the socket. It bounds
 * what a session holds while its answer is written (up to one such message), and keeps
 * allocations of many megabytes, which the allocator keeps as RSS after they are freed, off the
 * hot path: 99% of the sandbox corpus's messages are under 700 KB.
 */
export const wholeMessageInMemoryBytes = 1024 * 1024;

/**
 * A whole message's bytes for fetch-line.ts, from its tree and its attachments' encoded bytes
 * (downloaded first when not cached yet, as for the streams).
 */
async function messageBytes(view: AccountView, tree: MimeTreeNode, fetchedMessages: number): Promise<MessageBytes> {
  const ids = externalAttachments(tree).map(externalId);
  if (ids.length) await view.prefetchAttachments(ids, fetchedMessages);
  const encoded = ids.length ? await view.attachmentStorage.encodedBytes(ids) : new Map<string, Buffer>();
  return (textOnly) => (encoded ? bodyLiteral(tree, textOnly, (id) => encoded.get(id)) : null);
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

/** Header section types; without a part path they address the top-level header. */
const headerTypes = new Set(['header', 'header.fields', 'header.fields.not']);
/** Body section types that never touch attachment bytes. */
const headerOnly = new Set([...headerTypes, 'mime']);

/** Sections of the top-level header: answered from the stored header lines, no MIME tree needed. */
function isTopHeaderItem(q: FetchQueryItem): boolean {
  return q.item === 'rfc822.header' || (q.item === 'body' && !q.path && headerTypes.has(q.type ?? ''));
}

/** A tree of just the top-level header: all imap-core reads for those sections. */
function headerTree(header: string[]): MimeTreeNode {
  return { header, parsedHeader: {} };
}

/** Messages handled per metadata batch: bounds memory on 1:* fetches of huge folders. */
const batchSize = 500;

function rowValues(row: MessageRow): Record<string, unknown> {
  return { uid: row.uid, modseq: row.modseq, flags: row.flags, idate: new Date(row.idate), size: row.size };
}

type QueryOptions = { acceptUTF8Enabled: boolean } & Record<string, unknown>;

/**
 * Values imap-core answers from but cannot compute itself, when the FETCH asks for them:
 * EMAILID and THREADID (RFC 8474), the decoded BINARY sections (RFC 3516).
 */
type HookValues = { emailId?: string; threadId?: string | null; binary?: Record<string, Buffer> };

/**
 * FETCH values: ENVELOPE/BODYSTRUCTURE copied as compiled wire text (mime/compiled-summary.ts),
 * the rest through imap-core.
 */
function fetchValues(
  session: Session,
  query: FetchQueryItem[],
  row: MessageRow,
  summary: MessageSummary | undefined,
  mimeTree: MimeTreeNode | undefined,
  hookValues: HookValues,
  options: QueryOptions,
): unknown[] {
  const rest = session.fetchValues(
    query.filter((q) => !isCompiledItem(q.item)),
    { ...rowValues(row), mimeTree, ...hookValues },
    options,
  );
  let i = 0;
  return query.map((q) =>
    isCompiledItem(q.item) ? compiledToken(summary!.compiled, q.item, options.acceptUTF8Enabled) : rest[i++],
  );
}

/**
 * FETCH / UID FETCH. Flags, sizes, ENVELOPE, BODYSTRUCTURE and header sections come from the
 * state store (no vendor request once synced). Other body sections are served from the MIME
 * tree built from the stored message;
 * attachment bytes are downloaded before the response starts, so a vendor failure becomes a
 * NO instead of a truncated literal.
 */
export async function fetchMessages(
  view: AccountView,
  folder: ImapFolder,
  options: FetchOptions,
  session: Session,
  recent: ReadonlySet<number>,
): Promise<void> {
  let rows = view.rows(folder, options.messages);
  if (options.changedSince) rows = rows.filter((r) => r.modseq > Number(options.changedSince));

  if (options.markAsSeen) {
    const unseen = rows.filter((r) => !r.flags.includes('\\Seen'));
    if (unseen.length) {
      const result = await view.updateFlags(folder, unseen, 'add', ['\\Seen'], session.id);
      if (result.error) throw result.error;
      const flags = new Map(result.updated.map((u) => [u.uid, u]));
      rows = rows.map((r) =>
        flags.has(r.uid) ? { ...r, flags: flags.get(r.uid)!.flags, modseq: flags.get(r.uid)!.modseq } : r,
      );
    }
  }

  const needsSummary = options.query.some((q) => isCompiledItem(q.item));
  const wantsEmailId = options.query.some((q) => q.item === 'emailid');
  const wantsThreadId = options.query.some((q) => q.item === 'threadid');
  const wantsBinary = options.query.some(isBinaryItem);
  const treeItems = options.query.filter((q) => !rowItems.has(q.item) && !isCompiledItem(q.item));
  // header sections alone are served from the stored header lines; anything else needs the MIME tree
  const needsContentTree = treeItems.some((q) => !isTopHeaderItem(q));
  const needsContent = options.query.some((q) => contentItems.has(q.item) && !headerOnly.has(q.type ?? ''));
  const queryOptions = {
    acceptUTF8Enabled: session.utf8(),
    attachmentStorage: view.attachmentStorage,
    fetchOptions: {},
  };
  // metadata and whole messages written as text and kept bytes (fetch-line.ts): the same bytes
  // without imap-core's costs per message
  const lines = isLineQuery(options.query) ? fetchLines(session, options.query) : null;
  const lineWriter = lines && session.untagged.fetchLines();
  const lineContent = lines && readsContent(options.query);

  for (let i = 0; i < rows.length; i += batchSize) {
    const batch = rows.slice(i, i + batchSize);
    const ids = batch.map((r) => r.messageUid);
    // a line query reads the summaries' bytes; imap-core's path the summaries
    const summaryBytes = lines && needsSummary ? await view.summaryBytes(ids, queryOptions.acceptUTF8Enabled) : null;
    const summaries = needsSummary && !summaryBytes ? await view.summaries(ids) : new Map<string, MessageSummary>();
    const threads = wantsThreadId ? await view.threadIds(ids) : null;
    const trees = new Map<string, MimeTreeNode>();
    if (needsContentTree) for (const [uid, c] of await view.contents(ids)) trees.set(uid, c.mimeTree);
    else if (treeItems.length) for (const [uid, header] of await view.headers(ids)) trees.set(uid, headerTree(header));
    let written: Promise<void> = Promise.resolve();
    // a batch's lines go out in a few large chunks, not one write per message
    const flush = () => {
      written = lineWriter?.flush() ?? written;
    };
    for (let at = 0; at < batch.length; at++) {
      const row = batch[at];
      const rowEmailId = wantsEmailId ? emailId(view.account, row.messageUid) : undefined;
      const rowThreadId = threads ? threadId(view.account, threads.get(row.messageUid) ?? '') : undefined;
      if (lines && lineWriter) {
        const bytes = summaryBytes?.[at];
        // no summary, no tree: as below
        if (needsSummary && !bytes) continue;
        const tree = trees.get(row.messageUid);
        if (lineContent && !tree) continue;
        let content: MessageBytes | undefined;
        if (tree && lineContent && row.size > 0 && row.size <= wholeMessageInMemoryBytes) {
          flush();
          content = await messageBytes(view, tree, rows.length);
        }
        const out = lineWriter.begin(row.uid);
        if (!out) continue; // expunged from this session's view meanwhile
        const message = {
          row,
          summary: bytes,
          recent: recent.has(row.uid),
          content,
          emailId: rowEmailId,
          threadId: rowThreadId,
        };
        if (lines(out, message)) {
          lineWriter.end();
          // a message's content waits until written, as a stream's would
          if (content) {
            flush();
            await written;
          }
          continue;
        }
        lineWriter.drop();
        // imap-core's path answers this one (RFC822.SIZE not known yet), from its summary
        if (needsSummary)
          for (const [uid, summary] of await view.summaries([row.messageUid])) summaries.set(uid, summary);
      }
      const summary = summaries.get(row.messageUid);
      const tree = trees.get(row.messageUid);
      // the vendor no longer has it and nothing is cached: its removal reaches the session with the next poll
      if ((needsSummary && !summary) || (treeItems.length && !tree)) continue;
      flush();
      if (needsContent && tree)
        await view.prefetchAttachments(await attachmentsToServe(tree, options.query), rows.length);
      const hookValues = {
        emailId: rowEmailId,
        threadId: rowThreadId,
        binary: wantsBinary && tree ? await binarySections(tree, options.query, view.attachmentStorage) : undefined,
      };
      const flags = RecentMessages.flagsOf(recent, row.uid, row.flags);
      const shown = flags === row.flags ? row : { ...row, flags };
      const values = fetchValues(session, options.query, shown, summary, tree, hookValues, queryOptions);
      const response = session.untagged.fetchValues(row.uid, options.query, values, needsContent);
      if (!response) continue; // expunged from this session's view meanwhile
      // content streams one message at a time; short metadata answers are written in a row and
      // the batch waits for the last one, so at most one batch is buffered
      if (needsContent) await response;
      else written = response;
    }
    flush();
    await written;
  }
}
