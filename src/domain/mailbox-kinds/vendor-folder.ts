import { isLocalMessage, type MessageRow } from '../../store';
import { type Appended, refuseAppend } from '../append';
import type { Lane } from '../connector';
import { applyFlagUpdate, type FlagAction, type FlagUpdateResult } from '../flag-update';
import type { ImapFolder } from '../mailbox-map';
import { type CopyOutcome, movedAway, moveMessages, type MoveOutcome } from '../organize';
import { Refusal, requireVendorMessages } from '../refusal';
import type { SyncMode } from '../sync-context';
import type { SyncCause } from '../sync-observer';
import { type FolderStatus, type KindContext, listedStatus, type MailboxKind } from './kind';
import { copyVendorMessages } from './vendor-copy';

/**
 * A vendor folder: synced by listing it, its counts in the vendor's folder list, a message
 * moved out by a vendor move, EXPUNGE a move to Trash (the vendor API has no delete).
 */
export class VendorFolderKind implements MailboxKind {
  constructor(protected readonly ctx: KindContext) {}

  sync(folder: ImapFolder, mode: SyncMode | undefined, cause: SyncCause): Promise<void> {
    return this.ctx.syncs.sync(folder, mode, cause);
  }

  /**
   * A folder never listed is answered from the folder list's counts, one call for every
   * folder, instead of a sync; its UIDNEXT is then held to what was announced, so it never goes back.
   */
  async status(folder: ImapFolder): Promise<FolderStatus> {
    const listed = listedStatus(this.ctx, folder);
    if (listed) return listed;
    const counts = await this.ctx.vendorCounts(folder.key);
    if (!counts) {
      await this.sync(folder, undefined, 'client');
      return this.ctx.localStatus(folder);
    }
    this.ctx.sync.store.uidNextAtLeast(this.ctx.sync.account, folder.key, counts.total + 1);
    return { ...this.ctx.localStatus(folder), messages: counts.total, unseen: counts.unread };
  }

  ready(folder: ImapFolder): Promise<void> {
    return this.ctx.syncs.ready(folder);
  }

  updateFlags(
    folder: ImapFolder,
    rows: MessageRow[],
    action: FlagAction,
    flags: string[],
    sessionId?: string,
  ): Promise<FlagUpdateResult> {
    return applyFlagUpdate({ ...this.ctx.sync, folder: folder.key }, rows, action, flags, sessionId);
  }

  /** MOVE: vendor move first, then the UID maps of both folders; into a label view is refused. */
  async move(from: ImapFolder, rows: MessageRow[], to: ImapFolder, sessionId?: string): Promise<MoveOutcome> {
    requireVendorMessages(rows, 'moved to vendor folders');
    if ('label' in to.scope)
      throw new Refusal(
        'cannot',
        `A message stays in its folder when it gets a label: COPY it to ${to.path} to add the label`,
      );
    const vendorFolder = to.scope.folder;
    return this.ctx.syncs.exclusive(to.key, () => moveMessages(this.ctx.sync, from.key, rows, vendorFolder, sessionId));
  }

  copy(from: ImapFolder, rows: MessageRow[], to: ImapFolder): Promise<CopyOutcome> {
    return copyVendorMessages(this.ctx, from, rows, to);
  }

  /**
   * The \Deleted messages move to Trash, which is what webmail's delete does. The vendor API
   * has no delete command, so expunging inside Trash is refused rather than faked.
   */
  async expunge(folder: ImapFolder, deleted: MessageRow[], sessionId?: string): Promise<number[]> {
    const { sync, local } = this.ctx;
    // local drafts are the bridge's own: expunging deletes them for real; messages a COPY
    // already moved at the vendor only leave this view (the client is finishing its move)
    const drafts = deleted.filter((r) => isLocalMessage(r.messageUid)).map((r) => r.messageUid);
    const away = movedAway(sync, folder.key, deleted);
    const removed = sync.state
      .apply({ type: 'removed', folder: folder.key, messageUids: [...drafts, ...away], cause: sessionId })
      .of(folder.key);
    local.remove(sync.account, drafts);
    const rows = deleted.filter((r) => !isLocalMessage(r.messageUid) && !away.has(r.messageUid));
    if (!rows.length) return removed.map((c) => c.uid);
    const trash = await this.ctx.trash();
    if (!trash || trash.key === folder.key) {
      throw new Refusal(
        'cannot',
        'The mail vendor offers no permanent delete: messages in Trash stay until they are removed in webmail',
      );
    }
    return [...removed.map((c) => c.uid), ...(await this.move(folder, rows, trash, sessionId)).expunged];
  }

  /** APPEND: the vendor API cannot store a message (see append.ts); Drafts and Sent take some. */
  async append(folder: ImapFolder, _raw: Buffer, _flags: string[], _idate: Date): Promise<Appended> {
    return refuseAppend(folder.path);
  }

  refuseAppendHere(folder: ImapFolder): void {
    refuseAppend(folder.path);
  }

  searchText(folder: ImapFolder, text: string, lane: Lane): Promise<string[] | null> {
    return this.ctx.sync.vendor.search(text, folder.key, lane);
  }
}
