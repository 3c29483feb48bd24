import { EventEmitter } from 'node:events';
import type { AccountId } from '../model/account-id';
import { folderKey } from '../model/folder-key';
import type { ChangeSink, FolderChange, MailboxEvent, MailboxNameChange } from './changes';

/**
 * The journal imap-core sessions read their untagged updates from (EXISTS, EXPUNGE, FETCH).
 * imap-core calls addListener/removeListener/getUpdates; the mailbox views publish entries.
 * Entries are kept in memory: a session only needs what changed since its SELECT, and a
 * restart drops every session anyway.
 */

/**
 * `_id` names the entry for imap-core, which queues an update once per `_id` (a session may be
 * told the same entries twice while it catches up) and drops updates without one.
 */
type JournalEntry = FolderChange & { _id: number };

interface SessionLike {
  user: { id: AccountId };
}

type UpdatesCallback = (err: Error | null, entries?: JournalEntry[] | string) => void;

/** Journal entries kept per folder; older ones are only needed by sessions idle for hours. */
const maxEntriesPerFolder = 50_000;

export class ChangeJournal implements ChangeSink {
  private readonly listeners = new EventEmitter();
  /** Sessions that asked to hear of every mailbox (IMAP NOTIFY), by account. */
  private readonly watchers = new EventEmitter();
  private readonly journals = new Map<string, JournalEntry[]>();
  private lastId = 0;

  constructor() {
    this.listeners.setMaxListeners(0);
    this.watchers.setMaxListeners(0);
  }

  /** Calls `listener` with each change of the account's mailboxes until the returned function is called. */
  watch(account: AccountId, listener: (event: MailboxEvent) => void): () => void {
    this.watchers.on(account, listener);
    return () => this.watchers.off(account, listener);
  }

  addListener(session: SessionLike, handler: (payload?: unknown) => void): void {
    this.listeners.on(session.user.id, handler);
  }

  removeListener(session: SessionLike, handler: (payload?: unknown) => void): void {
    this.listeners.off(session.user.id, handler);
  }

  getUpdates(mailbox: string, modifyIndex: number, callback: UpdatesCallback): void {
    const journal = this.journals.get(String(mailbox)) ?? [];
    const since = Number(modifyIndex) || 0;
    // entries are appended in modseq order, so the tail after the last seen modseq is the answer
    let start = journal.length;
    while (start > 0 && journal[start - 1].modseq > since) start--;
    callback(null, journal.slice(start));
  }

  /** Records changes of one folder and wakes that account's sessions (IDLE ones answer at once). */
  publish(account: AccountId, folder: string, entries: FolderChange[]): void {
    if (!entries.length) return;
    const key = folderKey(account, folder);
    const journal = this.journals.get(key) ?? [];
    for (const entry of entries) journal.push({ ...entry, _id: ++this.lastId });
    if (journal.length > maxEntriesPerFolder) journal.splice(0, journal.length - maxEntriesPerFolder);
    this.journals.set(key, journal);
    setImmediate(() => this.listeners.emit(account));
    const event: MailboxEvent = { kind: 'messages', mailbox: key, commands: new Set(entries.map((e) => e.command)) };
    this.watchers.emit(account, event);
  }

  named(account: AccountId, change: MailboxNameChange): void {
    const event: MailboxEvent = { kind: 'name', change };
    this.watchers.emit(account, event);
  }

  /**
   * The folder's UID map ended (MailState.retireFolder): its entries name UIDs of a mailbox that
   * is gone, and a session that selected it is disconnected (imap-core's DROP: `* BYE Selected
   * mailbox was deleted`) rather than hear UIDs of another mailbox; so is the session whose
   * DELETE or RENAME it was, after its OK, as Dovecot 2.3 disconnects both.
   */
  retired(account: AccountId, folder: string): void {
    const mailbox = folderKey(account, folder);
    this.journals.delete(mailbox);
    setImmediate(() => this.listeners.emit(account, { command: 'DROP', mailbox }));
  }
}
