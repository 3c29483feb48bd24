import type { AccountView } from '../domain/account-view';
import type { ImapFolder } from '../domain/mailbox-map';
import type { MessageRow } from '../store';
import { RecentMessages } from './recent';
import type { QresyncParameter } from './engine';

/**
 * QRESYNC (RFC 7162 3.2) from the store: every message row carries the MODSEQ of its last
 * change, and each folder keeps the tombstones of its last expunges (MailStore.pruneTombstones).
 */

/**
 * UIDs expunged from `folder` after `modseq`. When the tombstones no longer reach back that
 * far, every UID below UIDNEXT the folder does not hold: more than the client may need, never
 * less, so its copy is right (RFC 7162 3.2.5.2 lets VANISHED (EARLIER) name UIDs it never saw).
 */
export function vanishedSince(
  view: AccountView,
  folder: ImapFolder,
  modseq: number,
  held: readonly number[],
  uidNext: number,
): number[] {
  const since = view.vanishedSince(folder, modseq);
  if (since.complete) return since.uids;
  const present = new Set(held);
  const gone: number[] = [];
  for (let uid = 1; uid < uidNext; uid++) if (!present.has(uid)) gone.push(uid);
  return gone;
}

/**
 * What a SELECT (QRESYNC ...) adds for imap-core to send: the UIDs gone since the client's
 * MODSEQ, and the flags of the messages changed (or added) since. Nothing when the client's
 * UIDVALIDITY is not the folder's: it then resynchronises from scratch.
 */
export function resync(
  view: AccountView,
  folder: ImapFolder,
  opened: { uidValidity: number; uidNext: number; uids: number[]; rows: readonly MessageRow[] },
  param: QresyncParameter,
  recent: ReadonlySet<number>,
): { vanished: number[]; changed: Array<{ uid: number; flags: readonly string[]; modseq: number }> } {
  if (param.uidValidity !== opened.uidValidity) return { vanished: [], changed: [] };
  return {
    vanished: vanishedSince(view, folder, param.modseq, opened.uids, opened.uidNext),
    changed: opened.rows
      .filter((r) => r.modseq > param.modseq)
      .map((r) => ({ uid: r.uid, flags: RecentMessages.flagsOf(recent, r.uid, r.flags), modseq: r.modseq })),
  };
}
