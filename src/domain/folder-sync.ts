import type { Logger } from '../log';
import type { FolderChange } from './changes';
import { describeMessage } from '../mime';
import { isLocalMessage, type MailStore } from '../store';
import type { Assumptions } from '../upstream/assumptions';
import type { MailboxApi } from '../upstream/api';
import type { VendorMessage, VendorThread } from '../upstream/types';
import { mergeFlags, vendorFlags } from './flags';

/**
 * Brings one folder of the SQLite state in line with the vendor.
 *  - incremental: newest list_threads pages until a page holds no unknown message, new
 *    messages fetched (body included: sizes and BODYSTRUCTURE need it) and given the next
 *    UIDs in arrival order, plus a flag refresh of the most recent messages (one request);
 *  - full: every page, so removals and flag changes anywhere in the folder are seen too.
 * Every change is journaled so NOOP/IDLE sessions hear about it.
 */

export interface SyncContext {
  account: string;
  api: MailboxApi;
  store: MailStore;
  assumptions: Assumptions;
  logger: Logger;
  publish(folder: string, entries: FolderChange[]): void;
}

export type SyncMode = 'full' | 'incremental';

/** Include list for messages whose MIME form is cached: body and attachment list, headers for spam/auth info. */
export const contentInclude = ['body', 'attachments', 'headers'];

/** Flags of this many most recent messages are re-read on every incremental poll: one request. */
const recentFlagWindow = 1000;

function threadUids(t: VendorThread, field: string): string[] {
  const uids = (t as unknown as Record<string, unknown>)[field];
  return Array.isArray(uids) ? (uids as string[]) : [t.last_message_uid];
}

async function listFolderUids(ctx: SyncContext, folder: string, mode: SyncMode, known: Set<string>): Promise<{ uids: string[]; complete: boolean }> {
  const field = ctx.assumptions.threadMessageUidsField;
  if (mode === 'full') {
    const threads = await ctx.api.listAllThreads(folder);
    return { uids: threads.flatMap((t) => threadUids(t, field)), complete: true };
  }
  const uids: string[] = [];
  let cursor: string | null = null;
  for (;;) {
    const page = await ctx.api.listThreads({ folder, limit: ctx.assumptions.commands.listThreads.maxLimit, cursor });
    const pageUids = page.threads.flatMap((t) => threadUids(t, field));
    uids.push(...pageUids);
    if (!page.nextCursor) return { uids, complete: true };
    if (pageUids.every((u) => known.has(u))) return { uids, complete: false };
    cursor = page.nextCursor;
  }
}

function inFolder(msg: VendorMessage, folder: string): boolean {
  return msg.folders.some((f) => f.toLowerCase() === folder.toLowerCase());
}

function arrivalOrder(a: VendorMessage, b: VendorMessage): number {
  return a.received_at.localeCompare(b.received_at) || a.message_uid.localeCompare(b.message_uid);
}

/** Fetches, describes and caches new messages, then gives them UIDs. Returns journal entries. */
async function addMessages(ctx: SyncContext, folder: string, ids: string[]): Promise<FolderChange[]> {
  if (!ids.length) return [];
  const { messages } = await ctx.api.getMessages(ids, contentInclude);
  const arrived = messages.filter((m) => inFolder(m, folder)).sort(arrivalOrder);
  for (const m of arrived) ctx.store.putMetadata(ctx.account, m.message_uid, { message: m, ...describeMessage(m) });
  const assigned = ctx.store.assignUids(
    ctx.account,
    folder,
    arrived.map((m) => ({ messageUid: m.message_uid, flags: vendorFlags(m), idate: new Date(m.received_at) })),
  );
  return assigned.map((a) => ({ command: 'EXISTS' as const, uid: a.uid, modseq: a.modseq }));
}

/** Re-reads vendor flags of `ids` and records differences. */
async function refreshFlags(ctx: SyncContext, folder: string, ids: string[]): Promise<FolderChange[]> {
  if (!ids.length) return [];
  const { messages, notFound } = await ctx.api.getMessages(ids, ctx.assumptions.metadataInclude);
  const entries: FolderChange[] = [];
  const rows = new Map(ctx.store.rowsByMessageUid(ctx.account, folder, ids).map((r) => [r.messageUid, r]));
  for (const m of messages) {
    const row = rows.get(m.message_uid);
    if (!row) continue;
    if (!inFolder(m, folder)) {
      notFound.push(m.message_uid);
      continue;
    }
    const flags = mergeFlags(vendorFlags(m), row.flags);
    if (sameFlags(flags, row.flags)) continue;
    const modseq = ctx.store.setFlags(ctx.account, folder, row.uid, flags);
    entries.push({ command: 'FETCH', uid: row.uid, flags, modseq });
  }
  return [...entries, ...expungeMessages(ctx, folder, notFound)];
}

export function expungeMessages(ctx: Pick<SyncContext, 'store' | 'account'>, folder: string, messageUids: string[]): FolderChange[] {
  if (!messageUids.length) return [];
  return ctx.store.expunge(ctx.account, folder, messageUids).map((r) => ({ command: 'EXPUNGE' as const, uid: r.uid, modseq: r.modseq }));
}

function sameFlags(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((f) => b.includes(f));
}

export async function syncFolder(ctx: SyncContext, folder: string, mode: SyncMode): Promise<void> {
  // local drafts are not the vendor's: never listed there, never expunged by a sync
  const rows = ctx.store.listMessages(ctx.account, folder).filter((r) => !isLocalMessage(r.messageUid));
  const known = new Set(rows.map((r) => r.messageUid));
  const listed = await listFolderUids(ctx, folder, mode, known);
  const listedSet = new Set(listed.uids);
  const entries = await addMessages(
    ctx,
    folder,
    [...listedSet].filter((u) => !known.has(u)),
  );
  if (listed.complete && mode === 'full') {
    entries.push(...expungeMessages(ctx, folder, [...known].filter((u) => !listedSet.has(u))));
    entries.push(...(await refreshFlags(ctx, folder, [...known].filter((u) => listedSet.has(u)))));
  } else {
    const recent = rows.slice(-recentFlagWindow).map((r) => r.messageUid);
    entries.push(...(await refreshFlags(ctx, folder, recent)));
  }
  if (entries.length) ctx.logger.debug({ account: ctx.account, folder, mode, changes: entries.length }, 'folder synced');
  ctx.publish(folder, entries);
}
