import type { LocalState, MessageRow } from '../../store';
import type { Appended, AppendedMessage } from '../append';
import type { Lane, MailFolder } from '../connector';
import type { FlagAction, FlagUpdateResult } from '../flag-update';
import type { ImapFolder } from '../mailbox-map';
import type { CopyOutcome, MoveOutcome } from '../organize';
import type { SyncContext, SyncMode } from '../sync-context';
import type { SyncCause } from '../sync-observer';
import type { SyncScheduler } from '../sync-scheduler';

/**
 * What a mailbox does with each IMAP operation depends on what it is: a vendor folder, the
 * Drafts or Sent folder (which also take the bridge's local drafts and recognised Sent
 * copies), a label view, or the Quarantine. Each kind is one module implementing this
 * interface; AccountView picks the module by the folder's `kind` and keeps no per-kind branch.
 * Operations on two mailboxes (MOVE, COPY) are the source's: the destination only says where.
 */
export interface MailboxKind {
  /** Brings the mailbox's local state up to date with its source (or joins the sync under way). */
  sync(folder: ImapFolder, mode: SyncMode | undefined, cause: SyncCause): Promise<void>;
  /** STATUS, from local state where it can. */
  status(folder: ImapFolder): Promise<FolderStatus>;
  /** Resolves once the local state can answer SELECT/EXAMINE. */
  ready(folder: ImapFolder): Promise<void>;
  updateFlags(
    folder: ImapFolder,
    rows: MessageRow[],
    action: FlagAction,
    flags: string[],
    sessionId?: string,
  ): Promise<FlagUpdateResult>;
  move(from: ImapFolder, rows: MessageRow[], to: ImapFolder, sessionId?: string): Promise<MoveOutcome>;
  copy(from: ImapFolder, rows: MessageRow[], to: ImapFolder): Promise<CopyOutcome>;
  /** EXPUNGE of these \Deleted rows; the UIDs that left. */
  expunge(folder: ImapFolder, deleted: MessageRow[], sessionId?: string): Promise<number[]>;
  append(folder: ImapFolder, raw: Buffer, flags: string[], idate: Date): Promise<Appended>;
  /** Throws what `append` answers when no message can be stored here (a CATENATE then reads no URL). */
  refuseAppendHere(folder: ImapFolder): void;
  /** Several messages appended all or none (MULTIAPPEND), by a kind that stores them; see AccountView.appendAll. */
  appendAll?(
    folder: ImapFolder,
    messages: readonly AppendedMessage[],
  ): Promise<{ uids: number[]; uidValidity: number }>;
  /** Message ids matching `text` (full-text, by the vendor, in `lane`); null when the vendor cannot search. */
  searchText(folder: ImapFolder, text: string, lane: Lane): Promise<string[] | null>;
}

export interface FolderStatus {
  messages: number;
  uidNext: number;
  uidValidity: number;
  unseen: number;
  highestModseq: number;
}

/** What the kinds share of their account: its state, its syncs and the whole view's operations. */
export interface KindContext {
  sync: SyncContext;
  syncs: SyncScheduler<ImapFolder>;
  local: LocalState;
  /** COPY to a folder: refused, or done as a vendor move for clients that move by COPY + EXPUNGE. */
  copyToFolder: 'refuse' | 'move';
  /** The folder's counters as the local state has them, without asking the vendor. */
  localStatus(folder: ImapFolder): FolderStatus;
  /** The vendor's message counts of a folder, from the (cached) folder list. */
  vendorCounts(folderName: string): Promise<MailFolder | undefined>;
  /** The account's Trash, if the vendor has one. */
  trash(): Promise<ImapFolder | undefined>;
}

/** STATUS of a mailbox listed since start: local state, refreshed in the background when stale; null before. */
export function listedStatus(ctx: KindContext, folder: ImapFolder): FolderStatus | null {
  if (!ctx.syncs.isListed(folder)) return null;
  ctx.syncs.refreshIfStale(folder);
  return ctx.localStatus(folder);
}
