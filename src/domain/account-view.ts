import type { Logger } from '../log';
import type { PublishChanges } from './changes';
import { LocalMessages, isLocalMessage, type MailStore, type MessageRow, type MessageSummary, type StoredMetadata } from '../store';
import type { Assumptions } from '../upstream/assumptions';
import type { MailboxApi } from '../upstream/api';
import type { FolderRole, VendorFolder } from '../upstream/types';
import { KeyedLock } from '../util/keyed-lock';
import { createAttachmentStorage, describeMessage, externalAttachments, externalId, type AttachmentStorage, type MimeTreeNode } from '../mime';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { appendDraft, appendSentCopy, messageIdOf, refuseAppend, type Appended } from './append';
import { contentInclude, expungeMessages, syncFolder, type SyncContext, type SyncMode } from './folder-sync';
import { moveMessages, type MoveOutcome } from './organize';
import { Refusal } from './refusal';
import { applyFlagUpdate, type FlagAction, type FlagUpdateResult } from './flag-update';

/**
 * One account's mailbox as IMAP sees it: folders, UID-numbered messages, flags. The protocol
 * layer calls this; this calls the upstream client and the store. Nothing here knows IMAP
 * syntax, and nothing here builds HTTP requests.
 */

export interface ImapFolder {
  path: string;
  vendorName: string;
  role: FolderRole;
  specialUse: string | null;
}

const specialUse: Record<string, string> = {
  sent: '\\Sent',
  drafts: '\\Drafts',
  trash: '\\Trash',
  spam: '\\Junk',
  archive: '\\Archive',
};

/** Folder list is re-read at most this often; LIST is cheap for clients to repeat. */
const folderListTtlMs = 60_000;

export interface FolderStatus {
  messages: number;
  uidNext: number;
  uidValidity: number;
  unseen: number;
  highestModseq: number;
}

export interface OpenFolder extends FolderStatus {
  uids: number[];
}

export interface FullMessage extends MessageRow {
  meta: StoredMetadata;
}

export class AccountView {
  private folderCache: { at: number; folders: ImapFolder[] } | null = null;
  private readonly syncLock = new KeyedLock();
  private readonly synced = new Map<string, ImapFolder>();
  private readonly sync: SyncContext;
  private readonly local: LocalMessages;
  /** Streams attachment bytes for imap-core's indexer: raw route once, then the disk cache. */
  readonly attachmentStorage: AttachmentStorage;

  constructor(
    readonly account: string,
    private readonly api: MailboxApi,
    private readonly store: MailStore,
    assumptions: Assumptions,
    logger: Logger,
    attachmentCacheDir: string,
    publish: PublishChanges,
  ) {
    this.sync = { account, api, store, assumptions, logger, publish: (folder, entries) => publish(account, folder, entries) };
    this.local = new LocalMessages(store.db);
    this.attachmentStorage = createAttachmentStorage(
      { open: async (messageUid, attachmentId) => (await api.raw(messageUid, attachmentId)).stream },
      {
        cacheDir: path.join(attachmentCacheDir, createHash('sha256').update(account.toLowerCase()).digest('hex').slice(0, 16)),
        onSizeMismatch: (ref, actual) => logger.warn({ account, attachment: ref.attachmentId, declared: ref.size, actual }, 'attachment size differs from size_bytes; served at the declared size'),
      },
    );
  }

  async folders(refresh = false): Promise<ImapFolder[]> {
    if (!refresh && this.folderCache && Date.now() - this.folderCache.at < folderListTtlMs) return this.folderCache.folders;
    const vendor = await this.api.listFolders();
    const folders = vendor.map((f: VendorFolder) => ({
      path: f.role === 'inbox' || f.name.toUpperCase() === 'INBOX' ? 'INBOX' : f.name,
      vendorName: f.name,
      role: f.role,
      specialUse: (f.role && specialUse[f.role]) || null,
    }));
    this.folderCache = { at: Date.now(), folders };
    return folders;
  }

  async folder(path: string): Promise<ImapFolder | null> {
    const match = (list: ImapFolder[]) => list.find((f) => (path.toUpperCase() === 'INBOX' ? f.path === 'INBOX' : f.path === path));
    return match(await this.folders()) ?? match(await this.folders(true)) ?? null;
  }

  /** Syncs one folder; a never-synced folder gets a full listing, later calls are incremental. */
  syncFolder(folder: ImapFolder, mode?: SyncMode): Promise<void> {
    return this.syncLock.run(folder.vendorName, async () => {
      const first = !this.synced.has(folder.vendorName) && this.store.folderState(this.account, folder.vendorName).count === 0;
      await syncFolder(this.sync, folder.vendorName, mode ?? (first ? 'full' : 'incremental'));
      this.synced.set(folder.vendorName, folder);
    });
  }

  /** Folders opened since start: the poller keeps these fresh. */
  activeFolders(): ImapFolder[] {
    return [...this.synced.values()];
  }

  status(folder: ImapFolder): FolderStatus {
    const s = this.store.folderState(this.account, folder.vendorName);
    return { messages: s.count, uidNext: s.uidNext, uidValidity: s.uidValidity, unseen: s.unseen, highestModseq: s.highestModseq };
  }

  async open(folder: ImapFolder): Promise<OpenFolder> {
    await this.syncFolder(folder);
    const rows = this.store.listMessages(this.account, folder.vendorName);
    return { ...this.status(folder), uids: rows.map((r) => r.uid) };
  }

  rows(folder: ImapFolder, uids: number[]): MessageRow[] {
    return this.store.getByUids(this.account, folder.vendorName, uids);
  }

  allRows(folder: ImapFolder): MessageRow[] {
    return this.store.listMessages(this.account, folder.vendorName);
  }

  /** Cached MIME metadata; anything missing (cache lost) is fetched and described again. */
  async metadata(messageUids: string[]): Promise<Map<string, StoredMetadata>> {
    const found = this.store.getMetadata(this.account, messageUids);
    const missing = messageUids.filter((u) => !found.has(u));
    if (missing.length) {
      const { messages } = await this.api.getMessages(missing, contentInclude);
      for (const m of messages) {
        const meta = { message: m, ...describeMessage(m) };
        this.store.putMetadata(this.account, m.message_uid, meta);
        found.set(m.message_uid, this.store.getMetadata(this.account, [m.message_uid]).get(m.message_uid) ?? meta);
      }
    }
    return found;
  }

  /** Size, ENVELOPE and BODYSTRUCTURE without the MIME tree: the cheap path of metadata FETCH. */
  async summaries(messageUids: string[]): Promise<Map<string, MessageSummary>> {
    const found = this.store.getSummaries(this.account, messageUids);
    const missing = messageUids.filter((u) => !found.has(u));
    if (missing.length) for (const [uid, meta] of await this.metadata(missing)) found.set(uid, meta);
    return found;
  }

  /** STORE: vendor-backed flags go upstream first; the state changes only for confirmed ids. */
  updateFlags(folder: ImapFolder, rows: MessageRow[], action: FlagAction, flags: string[], sessionId?: string): Promise<FlagUpdateResult> {
    return applyFlagUpdate({ ...this.sync, folder: folder.vendorName }, rows, action, flags, sessionId);
  }

  /** MOVE: vendor move first, then the UID maps of both folders. */
  move(from: ImapFolder, rows: MessageRow[], to: ImapFolder, sessionId?: string): Promise<MoveOutcome> {
    return this.syncLock.run(to.vendorName, () => moveMessages(this.sync, from.vendorName, rows, to.vendorName, sessionId));
  }

  /**
   * EXPUNGE of \Deleted messages: they move to Trash, which is what webmail's delete does.
   * The vendor API has no delete command, so expunging inside Trash is refused rather than faked.
   */
  async expungeDeleted(folder: ImapFolder, uids: number[] | null, sessionId?: string): Promise<number[]> {
    const all = this.allRows(folder).filter((r) => r.flags.includes('\\Deleted') && (!uids || uids.includes(r.uid)));
    // local drafts are the bridge's own: expunging deletes them for real
    const drafts = all.filter((r) => isLocalMessage(r.messageUid)).map((r) => r.messageUid);
    const removed = expungeMessages(this.sync, folder.vendorName, drafts);
    this.local.remove(this.account, drafts);
    this.sync.publish(folder.vendorName, removed.map((c) => ({ ...c, ignore: sessionId })));
    const rows = all.filter((r) => !isLocalMessage(r.messageUid));
    if (!rows.length) return removed.map((c) => c.uid);
    const trash = (await this.folders()).find((f) => f.role === 'trash');
    if (!trash || trash.vendorName === folder.vendorName) {
      throw new Refusal('cannot', 'The mail vendor offers no permanent delete: messages in Trash stay until they are removed in webmail');
    }
    return [...removed.map((c) => c.uid), ...(await this.move(folder, rows, trash, sessionId)).expunged];
  }

  /** APPEND: recognised Sent copies and local drafts only (see append.ts). */
  async append(folder: ImapFolder, raw: Buffer, flags: string[], idate: Date): Promise<Appended> {
    if (folder.role === 'drafts') return appendDraft(this.sync, this.local, folder, raw, flags, idate);
    const messageId = messageIdOf(raw);
    if (folder.role === 'sent' && messageId && this.local.wasSubmitted(this.account, messageId)) {
      return appendSentCopy(this.sync, folder, messageId, () => this.syncFolder(folder, 'incremental'));
    }
    return refuseAppend(folder.path);
  }

  /** Called by the SMTP side for every accepted submission. */
  recordSubmission(messageId: string): void {
    this.local.recordSubmission(this.account, messageId);
  }

  /** Vendor full-text search (assumption A4) restricted to one folder. */
  searchText(folder: ImapFolder, text: string): Promise<string[]> {
    return this.api.search({ query: text, folder: folder.vendorName });
  }

  /** Downloads the attachments a response will stream, before the response starts. */
  prefetchAttachments(tree: MimeTreeNode): Promise<void> {
    return this.attachmentStorage.prefetch(externalAttachments(tree).map(externalId));
  }
}
