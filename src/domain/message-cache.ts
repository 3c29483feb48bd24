import { LRUCache } from 'lru-cache';
import {
  contentTree,
  describePool,
  describeRaw,
  metadataRecord,
  readableText,
  summaryBytes,
  type MetadataRecord,
  type MimeTreeNode,
  type SummaryBytes,
} from '../mime';
import { messageKeys, type MessageKey, type MessageKeys } from '../mime/message-keys';
import type { CompiledSummary } from '../model/mail-rows';
import { isLocalMessage, type LocalState, type MailState, type MessageSummary } from '../store';
import { unrefClock, type Clock } from '../util/clock';
import { collectAfter } from '../util/memory';
import type { Connector } from './connector';
import type { MailMessage } from './message';

/**
 * What FETCH and SEARCH read of a message, from the store: summaries (size, compiled
 * ENVELOPE/BODYSTRUCTURE) and top-level header lines for every message of a folder, the MIME
 * tree only for messages whose content a client reads. The tree is built again from the
 * stored message (the same bytes every time, see mime/compose.ts), or for a draft from its
 * bytes. A row the store lacks (an older version's cache, a lost state file) is described
 * again: vendor messages are fetched, drafts read from local_messages.
 */

/** A message with its MIME tree: what body sections are served from. */
export interface MessageContent {
  message: MailMessage;
  mimeTree: MimeTreeNode;
}

/**
 * Bytes of built trees kept per account (an estimate, see contentBytes): a client reading a
 * message asks for its structure and then its parts, and clients reading bodies across a
 * mailbox would otherwise compose every message again at each read. Attachment bytes stay
 * outside the trees, so 32 MiB holds thousands of messages' trees.
 */
export const treeCacheBytes = 32 * 1024 * 1024;

/**
 * Bytes of ENVELOPE/BODYSTRUCTURE answers kept per account and session kind (about 25,000
 * messages' worth): a client that fetches a folder's metadata again, as clients do at every
 * start and resync, gets them without reading the store, decoding its text and parsing its
 * JSON again (three quarters of such a FETCH's CPU). A message's summary changes only when its
 * stored form is replaced (forget).
 */
export const summaryCacheBytes = 16 * 1024 * 1024;

/**
 * How long summaries a sync kept (summary-keeper.ts) wait for the FETCH they are kept for, from
 * the end of that sync: clients fetch what a SELECT or an EXISTS showed them at once, and that
 * is when the sync ends, which for a large folder is seconds after its first batches. Those no
 * FETCH read by then are dropped, so that an idle daemon holds only what clients read.
 */
export const keptForFetchMs = 3000;

/** Bookkeeping of a kept summary's entry and Buffers beyond their bytes. */
const summaryOverhead = 240;

/** Bookkeeping of a tree node (parsed header, sizes) beyond its strings and body bytes. */
const nodeOverhead = 512;

function treeBytes(node: MimeTreeNode): number {
  let bytes = nodeOverhead + (node.body ? node.body.length : 0);
  // parsedHeader holds the same lines again, parsed
  for (const line of node.header) bytes += 2 * line.length;
  for (const child of node.childNodes ?? []) bytes += treeBytes(child);
  if (node.message) bytes += treeBytes(node.message);
  return bytes;
}

/** What a built message holds in memory, roughly: its tree, and the vendor's text and HTML of it. */
export function contentBytes(content: MessageContent): number {
  const body = content.message.body;
  return treeBytes(content.mimeTree) + (body ? 2 * (body.text.length + body.html.length) : 0) + nodeOverhead;
}

/** The model of a local draft, from its header, so search and FETCH treat it like the rest. */
function draftMessage(messageUid: string, mimeTree: MimeTreeNode, idate: Date, raw: Buffer): MailMessage {
  const header = (name: string) =>
    mimeTree.header
      .find((h) => h.toLowerCase().startsWith(`${name}:`))
      ?.slice(name.length + 1)
      .trim() ?? '';
  const messageId = header('message-id');
  const from = header('from');
  return {
    id: messageUid,
    threadId: messageUid,
    messageId: /<[^>]+>/.exec(messageId)?.[0] ?? messageId,
    folders: [],
    labels: [],
    from: from ? { address: from, name: '' } : null,
    to: [],
    cc: [],
    bcc: [],
    references: [],
    subject: header('subject'),
    seen: true,
    flagged: false,
    important: false,
    snoozedUntil: null,
    receivedAt: idate.toISOString(),
    // SEARCH BODY/TEXT scans it: the vendor's search never sees a draft
    body: readableText(raw),
  };
}

/** The stored row of a draft: described from its own bytes, not composed. */
export function draftRecord(messageUid: string, raw: Buffer, idate: Date): MetadataRecord {
  const description = describeRaw(raw);
  return metadataRecord(draftMessage(messageUid, description.mimeTree, idate, raw), description);
}

export class MessageCache {
  private readonly trees: LRUCache<string, MessageContent>;
  /** Plain sessions' summary bytes, then UTF8=ACCEPT sessions'. */
  private readonly summaryBytesKept: [LRUCache<string, SummaryBytes>, LRUCache<string, SummaryBytes>];
  /** Plain summary bytes a sync kept that no FETCH read yet, while that sync goes on. */
  private readonly heldBySync = new Set<string>();
  /** Those of ended syncs, and when each sync ended (in that order). */
  private readonly keptBySync = new Map<string, number>();
  private sweep: (() => void) | null = null;

  constructor(
    private readonly account: string,
    private readonly vendor: Connector,
    private readonly store: MailState,
    private readonly local: LocalState,
    keptBytes = treeCacheBytes,
    private readonly clock: Clock = unrefClock,
  ) {
    this.trees = new LRUCache({ maxSize: keptBytes, sizeCalculation: contentBytes });
    const kept = () =>
      new LRUCache<string, SummaryBytes>({
        maxSize: summaryCacheBytes,
        sizeCalculation: (s) => s.envelope.length + s.bodystructure.length + summaryOverhead,
      });
    this.summaryBytesKept = [kept(), kept()];
  }

  async summaries(messageUids: string[]): Promise<Map<string, MessageSummary>> {
    return this.read(messageUids, (uids) => this.store.getSummaries(this.account, uids));
  }

  /**
   * Each message's ENVELOPE and BODYSTRUCTURE as a session of the kind gets them (in the order
   * given; undefined for a message that has no summary).
   */
  async summaryBytes(messageUids: readonly string[], utf8: boolean): Promise<Array<SummaryBytes | undefined>> {
    const kept = this.summaryBytesKept[utf8 ? 1 : 0];
    const bytes = messageUids.map((uid) => kept.get(uid));
    // read: kept as any other read summary from now on
    if ((this.keptBySync.size || this.heldBySync.size) && !utf8)
      for (const uid of messageUids) {
        this.keptBySync.delete(uid);
        this.heldBySync.delete(uid);
      }
    const missing = messageUids.filter((_, i) => !bytes[i]);
    if (!missing.length) return bytes;
    const summaries = await this.summaries(missing);
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i]) continue;
      const summary = summaries.get(messageUids[i]);
      if (!summary) continue;
      bytes[i] = summaryBytes(summary.compiled, utf8);
      kept.set(messageUids[i], bytes[i]);
    }
    return bytes;
  }

  /**
   * Keeps plain sessions' summary bytes of records just stored (see summary-keeper.ts) while
   * their sync goes on, then `keptForFetchMs` after it ended (shown()), or for good once a FETCH
   * read them.
   */
  keep(records: readonly MetadataRecord[]): void {
    const kept = this.summaryBytesKept[0];
    for (const r of records) {
      kept.set(r.messageUid, summaryBytes(JSON.parse(r.summary) as CompiledSummary, false));
      this.heldBySync.add(r.messageUid);
    }
  }

  /** The sync that kept these ended: a SELECT or an EXISTS shows them now. */
  shown(messageUids: readonly string[]): void {
    const now = this.clock.now();
    for (const uid of messageUids) {
      if (!this.heldBySync.delete(uid)) continue;
      this.keptBySync.delete(uid);
      this.keptBySync.set(uid, now);
    }
    if (this.keptBySync.size) this.sweep ??= this.clock.after(keptForFetchMs, () => this.dropUnread());
  }

  /**
   * Drops what ended syncs kept that no FETCH read in time, and looks again when the oldest of
   * what is left has waited as long (they are in the order their syncs ended).
   */
  private dropUnread(): void {
    this.sweep = null;
    const before = this.clock.now() - keptForFetchMs;
    let dropped = 0;
    let oldest: number | undefined;
    for (const [uid, at] of this.keptBySync) {
      if (at > before) {
        oldest = at;
        break;
      }
      this.keptBySync.delete(uid);
      this.summaryBytesKept[0].delete(uid);
      dropped++;
    }
    // a large folder's summaries are garbage now: collected at once, as after the sync
    collectAfter(dropped);
    if (oldest !== undefined) this.sweep = this.clock.after(oldest - before, () => this.dropUnread());
  }

  async headers(messageUids: string[]): Promise<Map<string, string[]>> {
    return this.read(messageUids, (uids) => this.store.getHeaders(this.account, uids));
  }

  /**
   * The `keys` of each message as stored when it was described; those of messages described
   * before keys were stored are computed from their header lines once, and stored. `folder`:
   * the folder that holds them, if one does (their keys are read through its rows).
   */
  async messageKeys(
    messageUids: string[],
    keys: readonly MessageKey[],
    folder?: string,
  ): Promise<Map<string, Partial<MessageKeys>>> {
    const found = this.store.getMessageKeys(this.account, messageUids, keys, folder);
    const missing = messageUids.filter((u) => !found.has(u));
    if (!missing.length) return found;
    const computed = new Map<string, MessageKeys>();
    for (const [uid, lines] of await this.headers(missing)) computed.set(uid, messageKeys(lines));
    this.store.putMessageKeys(this.account, computed);
    for (const [uid, computedKeys] of computed) found.set(uid, computedKeys);
    return found;
  }

  async threadIds(messageUids: string[]): Promise<Map<string, string>> {
    return this.read(messageUids, (uids) => this.store.getThreadIds(this.account, uids));
  }

  async messages(messageUids: string[]): Promise<Map<string, MailMessage>> {
    return this.read(messageUids, (uids) => this.store.getMessages(this.account, uids));
  }

  async contents(messageUids: string[]): Promise<Map<string, MessageContent>> {
    const out = new Map<string, MessageContent>();
    const unbuilt: string[] = [];
    for (const uid of messageUids) {
      const built = this.trees.get(uid);
      if (built) out.set(uid, built);
      else unbuilt.push(uid);
    }
    if (!unbuilt.length) return out;
    for (const [uid, message] of await this.messages(unbuilt)) {
      const raw = isLocalMessage(uid) ? this.local.get(this.account, uid)?.raw : undefined;
      const content = { message, mimeTree: raw ? describeRaw(raw).mimeTree : contentTree(message) };
      this.trees.set(uid, content);
      out.set(uid, content);
    }
    return out;
  }

  /** Drops what was built of messages whose stored form was replaced. */
  forget(messageUids: string[]): void {
    for (const uid of messageUids) {
      this.keptBySync.delete(uid);
      this.heldBySync.delete(uid);
      this.trees.delete(uid);
      for (const kept of this.summaryBytesKept) kept.delete(uid);
    }
  }

  /** `get` from the store, after describing and storing again whatever it lacks. */
  private async read<T>(messageUids: string[], get: (uids: string[]) => Map<string, T>): Promise<Map<string, T>> {
    const found = get(messageUids);
    const missing = messageUids.filter((u) => !found.has(u));
    if (!missing.length) return found;
    await this.describeAgain(missing);
    for (const [uid, value] of get(missing)) found.set(uid, value);
    return found;
  }

  private async describeAgain(messageUids: string[]): Promise<void> {
    const drafts = messageUids.filter(isLocalMessage);
    const records = drafts.flatMap((uid) => {
      const draft = this.local.get(this.account, uid);
      return draft ? [draftRecord(uid, draft.raw, draft.createdAt)] : [];
    });
    const vendorIds = messageUids.filter((u) => !isLocalMessage(u));
    if (vendorIds.length) {
      // a client waits for these: the gate's first lane
      const { messages } = await this.vendor.getMessages(vendorIds, 'content', 'content');
      records.push(...(await describePool().describe(messages)));
    }
    this.store.putMetadataRecords(this.account, records);
  }
}
