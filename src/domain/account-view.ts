import type { AccountId } from '../model/account-id';
import type { Logger } from '../log';
import type { ChangeSink } from './changes';
import type { LocalState, MailState, MessageRow, MessageSummary } from '../store';
import type { Connector, Lane, ListScope, MailFolder, MessagePage } from './connector';
import type { MailMessage } from './message';
import { SyncScheduler } from './sync-scheduler';
import { createAttachmentStorage, type AttachmentStorage, type SummaryBytes } from '../mime';
import type { MessageKey, MessageKeys } from '../mime/message-keys';
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Appended, AppendedMessage } from './append';
import type { SyncContext, SyncMode } from './sync-context';
import type { CopyOutcome, MoveOutcome } from './organize';
import { LabelFolders } from './label-folders';
import { type ImapFolder, type MailboxKindName, MailboxMap, mailboxAt } from './mailbox-map';
import { StateApplier } from './state-applier';
import { contentLane, syncLanes } from './lanes';
import { MessageCache, type MessageContent } from './message-cache';
import type { FlagAction, FlagUpdateResult } from './flag-update';
import type { SyncCause, SyncObserver } from './sync-observer';
import { QuarantineFolder, type HeldSubmission, type QuarantineAccess } from './quarantine-folder';
import type { FolderStatus, KindContext, MailboxKind } from './mailbox-kinds/kind';
import { VendorFolderKind } from './mailbox-kinds/vendor-folder';
import { DraftsKind } from './mailbox-kinds/drafts';
import { SentKind } from './mailbox-kinds/sent';
import { LabelViewKind } from './mailbox-kinds/label-view';
import { QuarantineKind } from './mailbox-kinds/quarantine';

/**
 * One account's mailbox as IMAP sees it: folders, UID-numbered messages, flags. The protocol
 * layer calls this; this calls the upstream client and the store. Nothing here knows IMAP
 * syntax, and nothing here builds HTTP requests. What an operation does depends on the kind of
 * mailbox, and is the kind's module's (mailbox-kinds/).
 */

export interface AccountViewOptions {
  account: AccountId;
  vendor: Connector;
  store: MailState;
  logger: Logger;
  attachmentCacheDir: string;
  changes: ChangeSink;
  /** IMAP parent of the label views (`Labels` shows label Work as `Labels/Work`); null hides them. */
  labelsRoot: string | null;
  /** COPY to a folder: refused, or done as a vendor move for clients that move by COPY + EXPUNGE. */
  copyToFolder: 'refuse' | 'move';
  /** A folder synced this recently is answered from local state without asking the vendor. */
  freshnessMs: number;
  /** Milliseconds; injected by tests. */
  now?: () => number;
  /** Told about every folder sync (status, readiness, metrics). */
  syncObserver?: SyncObserver;
  /** The quarantine log behind the Quarantine mailbox; without it there is none. */
  quarantine?: QuarantineAccess;
}

/** What a cold account's first SELECT of INBOX lists with the folder list (AccountView.askInboxPage). */
const inboxScope = { folder: 'INBOX' };

/**
 * The folder list is re-read at most this often, in the background: LIST and SELECT answer
 * from the list at hand, older or not.
 */
const folderListTtlMs = 60_000;

export type { FolderStatus };

export interface OpenFolder extends FolderStatus {
  /** The session's own list: the engine changes it as messages come and go. */
  uids: number[];
  /** The folder's messages, UID order (the protocol side reads their flags): a snapshot shared by every session. */
  rows: readonly MessageRow[];
}

/** The UIDs of a folder snapshot, made once for every session that opens it. */
const snapshotUids = new WeakMap<readonly MessageRow[], readonly number[]>();

function uidsOf(rows: readonly MessageRow[]): readonly number[] {
  let uids = snapshotUids.get(rows);
  if (!uids) {
    uids = rows.map((r) => r.uid);
    snapshotUids.set(rows, uids);
  }
  return uids;
}

export class AccountView {
  /** INBOX's first page, asked for with a cold account's folder list (askInboxPage). */
  private inboxPage: Promise<MessagePage> | null = null;
  private folderCache: {
    at: number;
    folders: ImapFolder[];
    counts: Map<string, MailFolder>;
    /** The labels the vendor listed; null when it lists none (A21), so there are no label folders. */
    labels: ReadonlySet<string> | null;
  } | null = null;
  /** The listFolders under way, which every caller that needs a new list joins. */
  private folderRefresh: Promise<ImapFolder[]> | null = null;
  private readonly now: () => number;
  private readonly quarantine: QuarantineFolder | null;
  private readonly syncs: SyncScheduler<ImapFolder>;
  private readonly sync: SyncContext;
  private readonly local: LocalState;
  private readonly messages: MessageCache;
  private readonly labelFolders: LabelFolders;
  /** Streams attachment bytes for imap-core's indexer: raw route once, then the disk cache. */
  readonly attachmentStorage: AttachmentStorage;

  readonly account: AccountId;
  private readonly vendor: Connector;
  private readonly store: MailState;
  private readonly logger: Logger;
  private readonly map: MailboxMap;
  private readonly kinds: Record<MailboxKindName, MailboxKind>;

  constructor({
    freshnessMs,
    now = Date.now,
    account,
    vendor,
    store,
    logger,
    attachmentCacheDir,
    changes,
    labelsRoot,
    copyToFolder,
    syncObserver,
    quarantine,
  }: AccountViewOptions) {
    this.account = account;
    this.vendor = vendor;
    this.store = store;
    this.logger = logger;
    this.map = new MailboxMap(labelsRoot, (label) =>
      logger.debug({ account, label }, 'label not shown as a folder (name unusable or taken)'),
    );
    this.now = now;
    this.sync = {
      account,
      vendor,
      store,
      logger,
      state: new StateApplier(store, account, {
        publish: (folder, entries) => changes.publish(account, folder, entries),
        retired: (folder) => changes.retired(account, folder),
        named: (change) => changes.named(account, change),
      }),
      forgetContent: (messageUids) => this.messages.forget(messageUids),
      keepSummaries: (records) => this.messages.keep(records),
      summariesShown: (messageUids) => this.messages.shown(messageUids),
      firstPage: (scope) => this.firstPage(scope),
    };
    this.syncs = new SyncScheduler({
      ctx: this.sync,
      freshnessMs,
      now,
      onBackgroundError: (folder, err) =>
        logger.warn(
          { account, folder: folder.key, err: (err as Error).message },
          'background sync failed; local state answers until the next poll',
        ),
      onSync: syncObserver && {
        started: (folder, cause) => syncObserver.started(account, folder.path, cause),
        ended: (folder, cause, err) => syncObserver.ended(account, folder.path, cause, err),
      },
    });
    this.local = store.local;
    this.labelFolders = new LabelFolders({
      ctx: this.sync,
      local: this.local,
      map: this.map,
      freshList: () => this.folders(true),
      vendorLabels: () => this.folderCache?.labels ?? null,
      labelsKeptEmpty: vendor.labelsKeptEmpty,
      exclusive: (key, fn) => this.syncs.exclusive(key, fn),
    });
    this.quarantine = quarantine ? new QuarantineFolder(this.sync, this.local, quarantine) : null;
    const kinds: KindContext = {
      sync: this.sync,
      syncs: this.syncs,
      local: this.local,
      copyToFolder,
      localStatus: (folder) => this.localStatus(folder),
      vendorCounts: (name) => this.vendorCounts(name),
      trash: async () => (await this.folders()).find((f) => f.role === 'trash'),
    };
    const vendorFolders = new VendorFolderKind(kinds);
    this.kinds = {
      folder: vendorFolders,
      drafts: new DraftsKind(kinds),
      sent: new SentKind(kinds),
      label: new LabelViewKind(kinds, this.labelFolders),
      // without a quarantine log no mailbox is of this kind
      quarantine: this.quarantine ? new QuarantineKind(kinds, this.quarantine) : vendorFolders,
    };
    this.messages = new MessageCache(account, vendor, store, this.local);
    this.attachmentStorage = createAttachmentStorage(
      {
        open: async (messageUid, attachmentId, lane) =>
          (await vendor.attachment(messageUid, attachmentId, lane)).stream,
      },
      {
        cacheDir: path.join(attachmentCacheDir, createHash('sha256').update(account).digest('hex').slice(0, 16)),
        onSizeMismatch: (ref, actual) =>
          logger.warn(
            { account, attachment: ref.attachmentId, declared: ref.size, actual },
            'attachment size differs from size_bytes; served at the declared size',
          ),
      },
    );
  }

  /**
   * The account's mailboxes: the list at hand, refreshed in the background once it is older
   * than folderListTtlMs; `refresh` (a name the list lacks) waits for a new list. One
   * listFolders at a time, however many sessions ask.
   */
  async folders(refresh = false): Promise<ImapFolder[]> {
    return this.shown(await this.vendorFolders(refresh));
  }

  /** The folders and labels of the vendor's list (folders() without what only the bridge has), as folders() gets them. */
  private async vendorFolders(refresh: boolean): Promise<ImapFolder[]> {
    const cached = this.folderCache;
    if (refresh || !cached) return this.refreshFolders();
    if (this.now() - cached.at >= folderListTtlMs) {
      this.refreshFolders().catch((err) =>
        this.logger.warn({ account: this.account, err: (err as Error).message }, 'folder list refresh failed'),
      );
    }
    return cached.folders;
  }

  /**
   * The first mailbox of folders() that `match` picks. The shown list begins with the vendor's,
   * so a mailbox found there is the one of the shown list: label folders only the bridge has and
   * Quarantine (read from the state each time) are looked at only when it is not there.
   */
  private async find(
    match: (list: ImapFolder[]) => ImapFolder | undefined,
    refresh = false,
  ): Promise<ImapFolder | undefined> {
    const listed = await this.vendorFolders(refresh);
    return match(listed) ?? match(this.shown(listed));
  }

  /** The vendor's folders and labels, the label folders only the bridge knows, and Quarantine. */
  private shown(folders: ImapFolder[]): ImapFolder[] {
    const local = this.folderCache?.labels ? this.labelFolders.recorded() : [];
    const all = this.map.withLabels(
      folders,
      local.map((l) => l.label),
    );
    return this.quarantine?.listed() ? [...all, this.quarantine.folder] : all;
  }

  private refreshFolders(): Promise<ImapFolder[]> {
    this.folderRefresh ??= this.loadFolders().finally(() => {
      this.folderRefresh = null;
    });
    return this.folderRefresh;
  }

  private async loadFolders(): Promise<ImapFolder[]> {
    const list = await this.vendor.listFolders('poll');
    if (list.labels) this.labelFolders.reconcile(list.labels);
    const folders = this.map.fromVendor(list);
    this.folderCache = {
      at: this.now(),
      folders,
      counts: new Map(list.folders.map((f) => [f.name, f])),
      labels: list.labels && new Set(list.labels),
    };
    return folders;
  }

  /**
   * The mailbox at `path` if it exists: listed, or a label folder only the bridge has. Where the
   * vendor lists no labels (A21), a name under the labels root is still a label folder, whose
   * opening then says what the vendor lacks.
   */
  async folder(path: string, opening = false): Promise<ImapFolder | null> {
    const at = (list: ImapFolder[]) => mailboxAt(list, path);
    const cold = !this.folderCache;
    const listed = this.find(at);
    if (opening && cold && path.toUpperCase() === 'INBOX') this.askInboxPage(listed);
    const found = (await listed) ?? (await this.find(at, true));
    return found ?? (this.folderCache?.labels ? null : this.map.viewAt(path));
  }

  /**
   * A cold account's first SELECT of INBOX waits for the folder list and then for the folder's
   * first page: the page is asked for with the list, in the same request (command-batching.ts),
   * under the name INBOX. The sync that the SELECT starts right after the list came takes it if
   * INBOX is the vendor's folder of that name (mailbox-map.ts), as with most vendors; otherwise
   * it lists from the start, and the page is dropped.
   */
  private askInboxPage(listed: Promise<unknown>): void {
    if (this.inboxPage) return;
    const page = this.vendor.listMessages(inboxScope, null, syncLanes.first);
    page.catch(() => undefined); // taken by the sync, which sees its failure; never unhandled
    this.inboxPage = page;
    const drop = () =>
      setImmediate(() => {
        if (this.inboxPage === page) this.inboxPage = null;
      });
    listed.then(drop, drop);
  }

  /** The first page asked for with the folder list (askInboxPage), once, for the first sync of INBOX. */
  private firstPage(scope: ListScope): Promise<MessagePage> | null {
    const page = this.inboxPage;
    if (!page || !('folder' in scope) || scope.folder !== inboxScope.folder) return null;
    this.inboxPage = null;
    return page;
  }

  /** Where COPY and MOVE put messages: an existing mailbox, or a label folder whose label they create. */
  async destination(path: string): Promise<ImapFolder | null> {
    return (await this.folder(path)) ?? this.map.viewAt(path);
  }

  /** The folder a session selected, by the key its selection was made with. */
  async folderByKey(key: string): Promise<ImapFolder | null> {
    const match = (list: ImapFolder[]) => list.find((f) => f.key === key);
    return (await this.find(match)) ?? (await this.find(match, true)) ?? this.map.viewByKey(key);
  }

  /** Syncs one folder now (or joins the running sync): the first listing, or incremental. */
  async syncFolder(folder: ImapFolder, mode?: SyncMode, cause: SyncCause = 'client'): Promise<void> {
    return this.kinds[folder.kind].sync(folder, mode, cause);
  }

  /**
   * Drops cached messages no folder holds any more (moved out of every view, deleted in
   * webmail). Only between syncs: a running sync stores messages before it numbers them.
   */
  /** Resolves once every state change so far is durable: a client is told OK only after it. */
  committed(): Promise<void> {
    return this.store.committed(this.account);
  }

  pruneCache(): number {
    return this.syncs.idle() ? this.store.pruneMetadata(this.account) : 0;
  }

  /** Folders opened since start: the poller keeps these fresh. */
  activeFolders(): ImapFolder[] {
    return this.syncs.activeTargets();
  }

  /** The folder's counters as the local state has them, without asking the vendor. */
  localStatus(folder: ImapFolder): FolderStatus {
    const s = this.store.folderState(this.account, folder.key);
    return {
      messages: s.count,
      uidNext: s.uidNext,
      uidValidity: s.uidValidity,
      unseen: s.unseen,
      highestModseq: s.highestModseq,
    };
  }

  /** STATUS from local state (refreshed in the background when stale). */
  async status(folder: ImapFolder): Promise<FolderStatus> {
    return this.kinds[folder.kind].status(folder);
  }

  /** The vendor's message counts of a folder, from the (cached) folder list. */
  private async vendorCounts(name: string): Promise<MailFolder | undefined> {
    await this.folders();
    return this.folderCache?.counts.get(name);
  }

  /** SELECT/EXAMINE: local state; only a folder never listed waits for the vendor. */
  async open(folder: ImapFolder): Promise<OpenFolder> {
    await this.kinds[folder.kind].ready(folder);
    const rows = this.store.folderSnapshot(this.account, folder.key);
    return { ...this.localStatus(folder), uids: uidsOf(rows).slice(), rows };
  }

  /** UIDs expunged after `modseq`, and whether the tombstones reach back that far (QRESYNC). */
  vanishedSince(folder: ImapFolder, modseq: number): { complete: boolean; uids: number[] } {
    return this.store.vanishedSince(this.account, folder.key, modseq);
  }

  rows(folder: ImapFolder, uids: number[]): MessageRow[] {
    return this.store.getByUids(this.account, folder.key, uids);
  }

  /** The message with this UID once the folder's local state can answer (a URL of CATENATE names it). */
  async messageAt(folder: ImapFolder, uid: number): Promise<MessageRow | null> {
    await this.kinds[folder.kind].ready(folder);
    return this.store.getByUids(this.account, folder.key, [uid])[0] ?? null;
  }

  allRows(folder: ImapFolder): MessageRow[] {
    return this.store.listMessages(this.account, folder.key);
  }

  /** Size and compiled ENVELOPE/BODYSTRUCTURE of each message: a metadata FETCH needs nothing else. */
  summaries(messageUids: string[]): Promise<Map<string, MessageSummary>> {
    return this.messages.summaries(messageUids);
  }

  /**
   * The summaries' ENVELOPE/BODYSTRUCTURE as a session of the kind gets them, in the order
   * given.
   */
  summaryBytes(messageUids: readonly string[], utf8: boolean): Promise<Array<SummaryBytes | undefined>> {
    return this.messages.summaryBytes(messageUids, utf8);
  }

  /** Top-level header lines of each message (header sections, SEARCH). */
  headers(messageUids: string[]): Promise<Map<string, string[]>> {
    return this.messages.headers(messageUids);
  }

  /** What SORT, THREAD and SEARCH compare of each message of `folder`: the `keys` asked for. */
  messageKeys(
    folder: ImapFolder,
    messageUids: string[],
    keys: readonly MessageKey[],
  ): Promise<Map<string, Partial<MessageKeys>>> {
    return this.messages.messageKeys(messageUids, keys, folder.key);
  }

  /** The vendor's thread id of each message (a draft's own id: a thread of one; "" when it has none). */
  threadIds(messageUids: string[]): Promise<Map<string, string>> {
    return this.messages.threadIds(messageUids);
  }

  /** The stored form of each message (body included). */
  storedMessages(messageUids: string[]): Promise<Map<string, MailMessage>> {
    return this.messages.messages(messageUids);
  }

  /** Stored form and MIME tree of each message: what content is served from. */
  contents(messageUids: string[]): Promise<Map<string, MessageContent>> {
    return this.messages.contents(messageUids);
  }

  /** STORE: vendor-backed flags go upstream first; the state changes only for confirmed ids. */
  async updateFlags(
    folder: ImapFolder,
    rows: MessageRow[],
    action: FlagAction,
    flags: string[],
    sessionId?: string,
  ): Promise<FlagUpdateResult> {
    return this.kinds[folder.kind].updateFlags(folder, rows, action, flags, sessionId);
  }

  /** MOVE: the source's kind says what moving out of it means. */
  async move(from: ImapFolder, rows: MessageRow[], to: ImapFolder, sessionId?: string): Promise<MoveOutcome> {
    return this.kinds[from.kind].move(from, rows, to, sessionId);
  }

  /** COPY: the source's kind says what copying out of it means. */
  async copy(from: ImapFolder, rows: MessageRow[], to: ImapFolder): Promise<CopyOutcome> {
    return this.kinds[from.kind].copy(from, rows, to);
  }

  /** SMTP: a submission the vendor held (one call per recipient copy). */
  holdQuarantined(held: HeldSubmission): void {
    this.quarantine?.hold(held);
  }

  /** Every poll: state kept only here follows its source (expired quarantine records leave). */
  reconcileLocal(): void {
    this.quarantine?.reconcile();
  }

  /** EXPUNGE of \Deleted messages (all, or those of `uids`), as the folder's kind does it. */
  async expungeDeleted(folder: ImapFolder, uids: number[] | null, sessionId?: string): Promise<number[]> {
    const deleted = this.allRows(folder).filter(
      (r) => r.flags.includes('\\Deleted') && (!uids || uids.includes(r.uid)),
    );
    return this.kinds[folder.kind].expunge(folder, deleted, sessionId);
  }

  /** CREATE, RENAME, DELETE: of label folders only (label-folders.ts). */
  createFolder(path: string): Promise<void> {
    return this.labelFolders.create(path);
  }

  renameFolder(path: string, newPath: string): Promise<void> {
    return this.labelFolders.rename(path, newPath);
  }

  deleteFolder(path: string): Promise<void> {
    return this.labelFolders.delete(path);
  }

  /** APPEND: recognised Sent copies and local drafts only (see append.ts). */
  async append(folder: ImapFolder, raw: Buffer, flags: string[], idate: Date): Promise<Appended> {
    return this.kinds[folder.kind].append(folder, raw, flags, idate);
  }

  /** Throws the folder's refusal when no APPEND can store anything in it (before a CATENATE reads its URLs). */
  refuseAppendHere(folder: ImapFolder): void {
    this.kinds[folder.kind].refuseAppendHere(folder);
  }

  /**
   * MULTIAPPEND (RFC 3502): all or none. Drafts keep them together (appendDrafts); every other
   * kind stores nothing of its own (Sent answers with the vendor's copies, the rest refuse), so
   * one message after another is all or none there too.
   */
  async appendAll(
    folder: ImapFolder,
    messages: readonly AppendedMessage[],
  ): Promise<{ uids: number[]; uidValidity: number }> {
    const kind = this.kinds[folder.kind];
    if (kind.appendAll) return kind.appendAll(folder, messages);
    const appended: Appended[] = [];
    for (const m of messages) appended.push(await kind.append(folder, m.raw, m.flags, m.idate));
    return { uids: appended.map((a) => a.uid), uidValidity: appended[0].uidValidity };
  }

  /** Called by the SMTP side for every accepted submission. */
  recordSubmission(messageId: string): void {
    this.local.recordSubmission(this.account, messageId);
  }

  /**
   * Vendor full-text search restricted to one folder (a label view searches everywhere); null
   * when the vendor cannot search. `content` when a client waits for the answer.
   */
  async searchText(folder: ImapFolder, text: string, lane: Lane = 'content'): Promise<string[] | null> {
    return this.kinds[folder.kind].searchText(folder, text, lane);
  }

  /** Downloads the attachments (external node ids) a response will stream, before the response starts. */
  /** `fetchedMessages`: how many messages the FETCH that needs them reads (a click or a bulk download). */
  prefetchAttachments(ids: readonly string[], fetchedMessages: number): Promise<void> {
    return this.attachmentStorage.prefetch(ids, contentLane(fetchedMessages));
  }
}
