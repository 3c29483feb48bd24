import { createIndexer } from '../mime';
import type { LocalState } from '../store';
import type { SyncContext } from './sync-context';
import { draftRecord } from './message-cache';
import { Refusal } from './refusal';

/**
 * APPEND, which the vendor API cannot do in general. Two cases are supported honestly:
 *  - a client's Sent copy of a message it submitted through the bridge's SMTP (Thunderbird
 *    and Outlook save one): the vendor already filed it in Sent, so the APPEND is answered
 *    with that message's UID instead of storing a duplicate;
 *  - drafts: kept in the bridge's SQLite state (local_messages), so autosave works and the
 *    draft survives restarts; they never reach the vendor.
 * Anything else is refused with a clear NO [CANNOT] instead of being accepted and dropped.
 */

const indexer = createIndexer();

export interface AppendTarget {
  key: string;
  role: string | null;
}

export interface Appended {
  uid: number;
  uidValidity: number;
}

/** How long to wait for the vendor's own Sent copy of a submitted message to be listed. */
const sentCopyWaitMs = 10_000;

export function messageIdOf(raw: Buffer): string | null {
  const tree = indexer.parseMimeTree(raw);
  const line = tree.header.find((h) => /^message-id:/i.test(h));
  const id = line?.slice(line.indexOf(':') + 1).trim();
  return id ? (/<[^>]+>/.exec(id)?.[0] ?? id) : null;
}

/** Finds the folder's message with this Message-ID among its newest entries. */
function findByMessageId(ctx: SyncContext, folder: string, messageId: string): number | null {
  const rows = ctx.store.listMessages(ctx.account, folder).slice(-500);
  const messages = ctx.store.getMessages(
    ctx.account,
    rows.map((r) => r.messageUid),
  );
  const hit = rows.find((r) => messages.get(r.messageUid)?.messageId === messageId);
  return hit?.uid ?? null;
}

export async function appendSentCopy(
  ctx: SyncContext,
  folder: AppendTarget,
  messageId: string,
  resync: () => Promise<void>,
): Promise<Appended> {
  const deadline = Date.now() + sentCopyWaitMs;
  for (;;) {
    await resync();
    const uid = findByMessageId(ctx, folder.key, messageId);
    if (uid) return { uid, uidValidity: ctx.store.folderState(ctx.account, folder.key).uidValidity };
    if (Date.now() > deadline) {
      throw new Refusal(
        'unavailable',
        'The message was sent through the bridge, but the vendor has not filed its Sent copy yet; it will appear in Sent by itself, no copy is needed',
      );
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** One message of an APPEND: its bytes, flags and INTERNALDATE. */
export interface AppendedMessage {
  raw: Buffer;
  flags: string[];
  idate: Date;
}

export function appendDraft(
  ctx: SyncContext,
  local: LocalState,
  folder: AppendTarget,
  raw: Buffer,
  flags: string[],
  idate: Date,
): Appended {
  const { uids, uidValidity } = appendDrafts(ctx, local, folder, [{ raw, flags, idate }]);
  return { uid: uids[0], uidValidity };
}

/**
 * Drafts appended together (MULTIAPPEND, RFC 3502): all or none. Each is kept in the local
 * state first, where no client sees it; they enter the folder in one change, and a failure
 * before it removes the ones kept.
 */
export function appendDrafts(
  ctx: SyncContext,
  local: LocalState,
  folder: AppendTarget,
  messages: readonly AppendedMessage[],
): { uids: number[]; uidValidity: number } {
  const messageUids: string[] = [];
  try {
    for (const m of messages) messageUids.push(local.add(ctx.account, m.raw));
    ctx.store.putMetadataRecords(
      ctx.account,
      messages.map((m, i) => draftRecord(messageUids[i], m.raw, m.idate)),
    );
  } catch (err) {
    local.remove(ctx.account, messageUids);
    throw err;
  }
  ctx.state.apply({
    type: 'added',
    folder: folder.key,
    messages: messages.map((m, i) => ({ messageUid: messageUids[i], flags: m.flags, idate: m.idate })),
    announce: true,
  });
  const uidOf = new Map(
    ctx.store.rowsByMessageUid(ctx.account, folder.key, messageUids).map((r) => [r.messageUid, r.uid]),
  );
  return {
    uids: messageUids.map((id) => uidOf.get(id) ?? 0),
    uidValidity: ctx.store.folderState(ctx.account, folder.key).uidValidity,
  };
}

export function refuseAppend(folderName: string): never {
  throw new Refusal(
    'cannot',
    `The mail vendor API cannot store messages in ${folderName}; only drafts (Drafts) and copies of mail sent through this bridge (Sent) can be appended`,
  );
}
