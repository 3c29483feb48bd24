import type { MessageRow } from '../../store';
import type { Appended } from '../append';
import { applyFlagUpdate, type FlagAction, type FlagUpdateResult } from '../flag-update';
import type { ImapFolder } from '../mailbox-map';
import type { CopyOutcome, MoveOutcome } from '../organize';
import { type QuarantineFolder, releaseKeyword } from '../quarantine-folder';
import type { FolderStatus, KindContext, MailboxKind } from './kind';

/**
 * The Quarantine mailbox (quarantine-folder.ts): the quarantine log's, not the vendor's. It is
 * reconciled with the log instead of synced, its name never reaches the vendor, and a message
 * leaves it only by a release.
 */
export class QuarantineKind implements MailboxKind {
  constructor(
    private readonly ctx: KindContext,
    private readonly quarantine: QuarantineFolder,
  ) {}

  async sync(): Promise<void> {
    this.quarantine.reconcile();
  }

  async status(folder: ImapFolder): Promise<FolderStatus> {
    this.quarantine.reconcile();
    return this.ctx.localStatus(folder);
  }

  async ready(): Promise<void> {
    this.quarantine.reconcile();
  }

  /** STORE +FLAGS ($Release) releases; other flags are kept as in any mailbox. */
  async updateFlags(
    folder: ImapFolder,
    rows: MessageRow[],
    action: FlagAction,
    flags: string[],
    sessionId?: string,
  ): Promise<FlagUpdateResult> {
    const release = action !== 'remove' && flags.some((f) => f.toLowerCase() === releaseKeyword.toLowerCase());
    if (!release) return applyFlagUpdate({ ...this.ctx.sync, folder: folder.key }, rows, action, flags, sessionId);
    // the released leave the mailbox; their EXPUNGE comes when STORE allows it (RFC 3501 7.4.1)
    await this.quarantine.release(rows);
    return { updated: [] };
  }

  async move(_from: ImapFolder, rows: MessageRow[], to: ImapFolder, sessionId?: string): Promise<MoveOutcome> {
    const expunged = await this.releaseTo(rows, to, 'MOVE', sessionId);
    return { uidValidity: 0, sourceUids: [], destinationUids: [], expunged };
  }

  async copy(_from: ImapFolder, rows: MessageRow[], to: ImapFolder): Promise<CopyOutcome> {
    await this.releaseTo(rows, to, 'COPY');
    return { uidValidity: 0, sourceUids: [], destinationUids: [] };
  }

  /**
   * Out of Quarantine only to where a released message lands: INBOX (held mail to oneself) or
   * Sent. The vendor delivers it; it shows in the destination at the next poll, so no COPYUID.
   */
  private releaseTo(rows: MessageRow[], to: ImapFolder, command: string, sessionId?: string): Promise<number[]> {
    if (to.path !== 'INBOX' && to.role !== 'sent') this.quarantine.refuse(`${command} to ${to.path}`);
    return this.quarantine.release(rows, sessionId);
  }

  async expunge(_folder: ImapFolder, deleted: MessageRow[]): Promise<number[]> {
    if (deleted.length) this.quarantine.refuse('EXPUNGE');
    return [];
  }

  async append(): Promise<Appended> {
    return this.quarantine.refuse('APPEND');
  }

  refuseAppendHere(): void {
    this.quarantine.refuse('APPEND');
  }

  /** Quarantine holds only the bridge's own copies, which SEARCH scans itself. */
  async searchText(): Promise<string[] | null> {
    return [];
  }
}
