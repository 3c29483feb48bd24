import { appendDraft, appendDrafts, type Appended, type AppendedMessage } from '../append';
import type { ImapFolder } from '../mailbox-map';
import { type FolderStatus, listedStatus } from './kind';
import { VendorFolderKind } from './vendor-folder';

/**
 * The vendor's Drafts folder, which also holds the bridge's local drafts: APPEND keeps a draft
 * in the local state (it never reaches the vendor), and EXPUNGE deletes it (VendorFolderKind).
 */
export class DraftsKind extends VendorFolderKind {
  override async append(folder: ImapFolder, raw: Buffer, flags: string[], idate: Date): Promise<Appended> {
    return appendDraft(this.ctx.sync, this.ctx.local, folder, raw, flags, idate);
  }

  /**
   * The vendor's folder counts do not hold the local drafts: a folder never listed that has
   * some in its UID map is listed once, so STATUS counts what SELECT will show.
   */
  override async status(folder: ImapFolder): Promise<FolderStatus> {
    const listed = listedStatus(this.ctx, folder);
    if (listed || this.ctx.localStatus(folder).messages === 0) return listed ?? super.status(folder);
    await this.sync(folder, undefined, 'client');
    return this.ctx.localStatus(folder);
  }

  /** Every draft is kept. */
  override refuseAppendHere(): void {}

  async appendAll(
    folder: ImapFolder,
    messages: readonly AppendedMessage[],
  ): Promise<{ uids: number[]; uidValidity: number }> {
    return appendDrafts(this.ctx.sync, this.ctx.local, folder, messages);
  }
}
