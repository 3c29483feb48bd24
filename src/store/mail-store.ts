import { LRUCache } from 'lru-cache';
import { type MetadataRecord, unconvertibleHeader } from '../mime';
import type {
  CompiledSummary,
  FolderState,
  MessageRow,
  MessageSummary,
  NewMessage,
  UidChange,
} from '../model/mail-rows';
import type { MailMessage } from '../domain/message';
import { readStoredMessage } from './stored-message';
import type { MessageKey, MessageKeys } from '../mime/message-keys';
import { keyColumns, keyValues, messageKeyNames, readKeys } from './message-keys-table';
import { openDatabase, type Database } from './db';
import { LocalMessages } from './local-messages';
import { WalDurability } from './wal-durability';
import type { Durability, MailState } from './state-store';
import { folderKey, splitFolderKey } from '../model/folder-key';
import { accountId } from '../model/account-id';
import {
  ascending,
  countsOf,
  findUid,
  flagColumn,
  flagList,
  isSeen,
  type RawRow,
  rowColumns,
  toRow,
} from './message-rows';

/**
 * IMAP mailbox state per (account, folder): UIDVALIDITY chosen once, UIDs assigned once in
 * arrival order and never renumbered, MODSEQ per change, flags; plus per (account,
 * message_uid) the cached message (mime/metadata-record.ts), shared by every folder holding it.
 */

/** Folders whose full row list stays in memory (IMAP clients keep re-reading the open folder). */
const rowCacheFolders = 16;

/** A commit counts as durable when it returns: databases MailStore.open did not open (a migration's source). */
const immediate: Durability = {
  afterCommit: (fn) => fn(),
  committed: () => Promise.resolve(),
};

export class MailStore implements MailState {
  private readonly folderIds = new Map<string, number>();
  /** folder id -> its rows by uid. Rows are never mutated, only replaced, so handed-out lists stay valid snapshots. */
  private readonly rowCache = new LRUCache<number, MessageRow[]>({ max: rowCacheFolders });
  private readonly stmt;
  /** Reads of message_keys by the columns they read: a command reads only the keys it compares. */
  private readonly keyReads = new Map<string, { all(...args: unknown[]): unknown[] }>();
  readonly local: LocalMessages;

  /** `durability`: when the writes are durable; a mirror of PostgreSQL (./pg) says when they reached it. */
  /** Tombstones kept per folder (pruneTombstones); docs/conformance.md, QRESYNC. */
  tombstonesKept = 10_000;

  constructor(
    readonly db: Database,
    private readonly durability: Durability = immediate,
  ) {
    this.local = new LocalMessages(db);
    const p = <T extends unknown[] = unknown[]>(sql: string) => db.prepare<T>(sql);
    this.stmt = {
      folderId: p('SELECT id FROM folders WHERE account = ? AND name = ?'),
      listedFolders: p(
        "SELECT f.name FROM folders f JOIN kv ON kv.key = 'listed:' || f.id WHERE f.account = ? ORDER BY f.name",
      ).pluck(),
      insertFolder: p(
        'INSERT INTO folders (account, name, uidvalidity, uidnext, highestmodseq) VALUES (?, ?, ?, 1, 1)',
      ),
      folder: p('SELECT uidvalidity, uidnext, highestmodseq FROM folders WHERE id = ?'),
      counts: p(
        'SELECT count(*) AS count, count(*) - coalesce(sum(seen), 0) AS unseen FROM messages WHERE folder_id = ?',
      ),
      setFolderCounters: p('UPDATE folders SET uidnext = ?, highestmodseq = ? WHERE id = ?'),
      renumber: p('UPDATE folders SET uidvalidity = ?, uidnext = 1, highestmodseq = ? WHERE id = ?'),
      deleteMessages: p('DELETE FROM messages WHERE folder_id = ?'),
      deleteTombstones: p('DELETE FROM expunged WHERE folder_id = ?'),
      deleteKv: p('DELETE FROM kv WHERE key = ?'),
      getKv: p('SELECT value FROM kv WHERE key = ?'),
      setKv: p('INSERT OR REPLACE INTO kv (key, value) VALUES (?, ?)'),
      insertMessage: p(
        'INSERT OR IGNORE INTO messages (folder_id, uid, message_uid, modseq, flags, seen, idate, size) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      storedSize: p('SELECT size FROM message_cache WHERE account = ? AND message_uid = ?').pluck(),
      list: p(`SELECT ${rowColumns} FROM messages WHERE folder_id = ? ORDER BY uid`).raw(true),
      byUids: p(
        `SELECT ${rowColumns} FROM messages WHERE folder_id = ? AND uid IN (SELECT value FROM json_each(?)) ORDER BY uid`,
      ).raw(true),
      byMessageUids: p(
        `SELECT ${rowColumns} FROM messages WHERE folder_id = ? AND message_uid IN (SELECT value FROM json_each(?)) ORDER BY uid`,
      ).raw(true),
      everywhere: p(
        `SELECT f.name, m.uid, m.message_uid, m.flags, m.modseq, m.idate, m.size FROM messages m JOIN folders f ON f.id = m.folder_id
         WHERE f.account = ? AND m.message_uid IN (SELECT value FROM json_each(?)) ORDER BY f.name, m.uid`,
      ).raw(true),
      setFlags: p(
        'UPDATE messages SET flags = ?, seen = ?, modseq = ? WHERE folder_id = ? AND uid IN (SELECT value FROM json_each(?))',
      ),
      deleteByMessageUids: p(
        'DELETE FROM messages WHERE folder_id = ? AND message_uid IN (SELECT value FROM json_each(?)) RETURNING uid, message_uid',
      ),
      tombstone: p('INSERT OR REPLACE INTO expunged (folder_id, uid, modseq) VALUES (?, ?, ?)'),
      tombstonesSince: p('SELECT uid, modseq FROM expunged WHERE folder_id = ? AND (modseq > ? OR uid = 0)').raw(true),
      tombstoneCount: p('SELECT count(*) FROM expunged WHERE folder_id = ? AND uid > 0').pluck(),
      // the MODSEQ of the newest tombstone past those kept
      tombstoneCutoff: p(
        'SELECT modseq FROM expunged WHERE folder_id = ? AND uid > 0 ORDER BY modseq DESC LIMIT 1 OFFSET ?',
      ).pluck(),
      pruneTombstones: p('DELETE FROM expunged WHERE folder_id = ? AND uid > 0 AND modseq <= ?'),
      putMetadata: p(
        'INSERT OR REPLACE INTO message_cache (account, message_uid, size, summary, header, message) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      putKeys: p(
        `INSERT OR REPLACE INTO message_keys (account, message_uid, ${messageKeyNames.map((k) => keyColumns[k].name).join(', ')})
         VALUES (?, ?, ${messageKeyNames.map(() => '?').join(', ')})`,
      ),
      getSummaries: p(
        'SELECT message_uid, size, summary FROM message_cache WHERE account = ? AND message_uid IN (SELECT value FROM json_each(?))',
      ).raw(true),
      getHeaders: p(
        'SELECT message_uid, header FROM message_cache WHERE account = ? AND message_uid IN (SELECT value FROM json_each(?))',
      ).raw(true),
      getMessages: p(
        'SELECT message_uid, message FROM message_cache WHERE account = ? AND message_uid IN (SELECT value FROM json_each(?))',
      ).raw(true),
      // the vendor's thread id, read in SQLite without parsing whole messages in JS; rows of the
      // versions before the message model (stored-message.ts) name it thread_id
      getThreadIds: p(
        `SELECT message_uid, coalesce(json_extract(message, '$.threadId'), json_extract(message, '$.thread_id'), '')
         FROM message_cache WHERE account = ? AND message_uid IN (SELECT value FROM json_each(?))`,
      ).raw(true),
      unconvertible: p(
        `SELECT message_uid FROM message_cache WHERE account = ? AND message_uid IN (SELECT value FROM json_each(?)) AND header LIKE '%${unconvertibleHeader}:%'`,
      ).pluck(),
      // the rows of the account's folders whose size is not their message's stored one
      metadataSizeToRows: p(
        `UPDATE messages SET size = c.size FROM message_cache c
         WHERE c.account = @account AND c.message_uid = messages.message_uid AND messages.size != c.size
           AND messages.message_uid IN (SELECT value FROM json_each(@ids))
           AND messages.folder_id IN (SELECT id FROM folders WHERE account = @account)
         RETURNING messages.folder_id, messages.uid, messages.size`,
      ).raw(true),
      pruneMetadata: p(
        'DELETE FROM message_cache WHERE account = ? AND NOT EXISTS (SELECT 1 FROM messages m JOIN folders f ON f.id = m.folder_id WHERE f.account = message_cache.account AND m.message_uid = message_cache.message_uid)',
      ),
      pruneKeys: p(
        'DELETE FROM message_keys WHERE account = ? AND NOT EXISTS (SELECT 1 FROM message_cache c WHERE c.account = message_keys.account AND c.message_uid = message_keys.message_uid)',
      ),
    };
  }

  /** Forgets what it cached of the account (its rows were replaced underneath: ./pg/mirror.ts). */
  forgetAccount(account: string): void {
    for (const key of this.folderIds.keys())
      if (splitFolderKey(key).account === accountId(account)) this.folderIds.delete(key);
    this.rowCache.clear();
  }

  static open(stateDir: string): MailStore {
    const db = openDatabase(stateDir);
    return new MailStore(db, new WalDurability(db));
  }

  close(): void {
    this.db.close();
  }

  /**
   * A new folder's UIDVALIDITY: the current time in seconds, but always above any value given
   * out before, so a folder deleted and re-created in the same second still gets a new one.
   */
  private nextUidValidity(): number {
    const last = Number((this.stmt.getKv.get('last_uidvalidity') as { value: string } | undefined)?.value ?? 0);
    const next = Math.max(Math.floor(Date.now() / 1000), last + 1);
    this.stmt.setKv.run('last_uidvalidity', String(next));
    return next;
  }

  private folderId(account: string, folder: string): number {
    const key = folderKey(accountId(account), folder);
    let id = this.folderIds.get(key);
    if (id === undefined) {
      id = this.db.transaction(() => {
        const row = this.stmt.folderId.get(account, folder) as { id: number } | undefined;
        if (row) return row.id;
        return Number(this.stmt.insertFolder.run(account, folder, this.nextUidValidity()).lastInsertRowid);
      })();
      this.folderIds.set(key, id);
    }
    return id;
  }

  private counters(id: number): { uidValidity: number; uidNext: number; highestModseq: number } {
    const f = this.stmt.folder.get(id) as { uidvalidity: number; uidnext: number; highestmodseq: number };
    return { uidValidity: f.uidvalidity, uidNext: f.uidnext, highestModseq: f.highestmodseq };
  }

  /** Folder counters; the first call for a folder creates it (and fixes its UIDVALIDITY). */
  folderState(account: string, folder: string): FolderState {
    const id = this.folderId(account, folder);
    const cached = this.rowCache.get(id);
    const counts = cached ? countsOf(cached) : (this.stmt.counts.get(id) as { count: number; unseen: number });
    return { ...this.counters(id), count: counts.count, unseen: counts.unseen };
  }

  /**
   * Gives UIDs to messages not yet in the folder, in the given (arrival) order; known ones keep
   * theirs. All new messages share one new MODSEQ. Returns only the newly assigned. A row's
   * size is its message's stored one (0 until it is stored: putMetadataRecords sets it then).
   */
  assignUids(account: string, folder: string, messages: ReadonlyArray<NewMessage | string>): UidChange[] {
    const id = this.folderId(account, folder);
    return this.db.transaction(() => {
      const c = this.counters(id);
      const modseq = c.highestModseq + 1;
      let uid = c.uidNext;
      const assigned: UidChange[] = [];
      // the rows as inserted, for a cached row list: a first sync's 10,000 are not read back
      const rows: MessageRow[] = [];
      const now = Date.now();
      for (const item of messages) {
        const m = typeof item === 'string' ? { messageUid: item } : item;
        const flags = flagColumn(m.flags ?? []);
        const seen = isSeen(m.flags ?? []);
        const idate = m.idate && !Number.isNaN(m.idate.getTime()) ? m.idate.getTime() : now;
        const size = m.size ?? (this.stmt.storedSize.get(account, m.messageUid) as number | undefined) ?? 0;
        if (!this.stmt.insertMessage.run(id, uid, m.messageUid, modseq, flags, seen, idate, size).changes) continue;
        assigned.push({ messageUid: m.messageUid, uid, modseq });
        rows.push({ uid, messageUid: m.messageUid, flags: flagList(flags), modseq, idate, size });
        uid++;
      }
      if (assigned.length) {
        this.stmt.setFolderCounters.run(uid, modseq, id);
        const cached = this.rowCache.get(id);
        if (cached) this.rowCache.set(id, cached.concat(rows));
      }
      return assigned;
    })();
  }

  /** Every message of the folder, by ascending UID. */
  listMessages(account: string, folder: string): MessageRow[] {
    return this.folderRows(this.folderId(account, folder)).slice();
  }

  folderSnapshot(account: string, folder: string): readonly MessageRow[] {
    return this.folderRows(this.folderId(account, folder));
  }

  private folderRows(id: number): MessageRow[] {
    let rows = this.rowCache.get(id);
    if (!rows) {
      rows = (this.stmt.list.all(id) as RawRow[]).map(toRow);
      this.rowCache.set(id, rows);
    }
    return rows;
  }

  getByUids(account: string, folder: string, uids: readonly number[]): MessageRow[] {
    if (!uids.length) return [];
    const id = this.folderId(account, folder);
    const cached = this.rowCache.get(id);
    if (!cached) return (this.stmt.byUids.all(id, JSON.stringify(uids)) as RawRow[]).map(toRow);
    // a FETCH of 50 messages looks up 50 rows, not a pass over the folder's 10,000
    const rows: MessageRow[] = [];
    // a range such as 1:* comes ascending already (engines keep their UID lists so)
    for (const uid of ascending(uids) ? uids : [...new Set(uids)].sort((a, b) => a - b)) {
      const at = findUid(cached, uid);
      if (at >= 0) rows.push(cached[at]);
    }
    return rows;
  }

  rowsByMessageUid(account: string, folder: string, messageUids: readonly string[]): MessageRow[] {
    if (!messageUids.length) return [];
    return (this.stmt.byMessageUids.all(this.folderId(account, folder), JSON.stringify(messageUids)) as RawRow[]).map(
      toRow,
    );
  }

  /** Runs `fn` as one transaction: one commit (one fsync) for many row changes. */
  atomically<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  afterCommit(fn: () => void): void {
    this.durability.afterCommit(fn);
  }

  committed(account?: string): Promise<void> {
    return this.durability.committed(account);
  }

  /** Every row of these messages in any folder of the account (folders and label views alike). */
  rowsEverywhere(account: string, messageUids: readonly string[]): Array<{ folder: string; row: MessageRow }> {
    if (!messageUids.length) return [];
    return (this.stmt.everywhere.all(account, JSON.stringify(messageUids)) as Array<[string, ...RawRow]>).map(
      ([folder, ...raw]) => ({ folder, row: toRow(raw as RawRow) }),
    );
  }

  /**
   * Ends the folder's UID map: the name now stands for another mailbox (a label folder deleted,
   * or renamed away or onto), which starts empty, unlisted, numbered from UID 1 under a
   * UIDVALIDITY above every one given before (RFC 3501 2.3.1.1), so no UID a client kept
   * names other bytes. The row stays, with its MODSEQs still growing: sessions read the change
   * journal by MODSEQ, and the mirror (./pg) replicates an update of it, not a removal.
   */
  retireFolder(account: string, folder: string): void {
    const id = this.folderId(account, folder);
    this.db.transaction(() => {
      const c = this.counters(id);
      this.stmt.deleteMessages.run(id);
      this.stmt.deleteTombstones.run(id);
      this.stmt.deleteKv.run(`listed:${id}`);
      this.stmt.renumber.run(this.nextUidValidity(), c.highestModseq + 1, id);
    })();
    this.rowCache.delete(id);
  }

  /** Records that the folder was listed completely once, so later syncs may be incremental. */
  markListed(account: string, folder: string): void {
    this.stmt.setKv.run(`listed:${this.folderId(account, folder)}`, '1');
  }

  /** Keys of the account's folders (and label views) that were listed completely once. */
  listedFolders(account: string): string[] {
    return this.stmt.listedFolders.all(account) as string[];
  }

  /** Raises the folder's UIDNEXT to `uidNext` if it is lower (a value announced before any UID was given). */
  uidNextAtLeast(account: string, folder: string, uidNext: number): void {
    const id = this.folderId(account, folder);
    this.db.transaction(() => {
      const c = this.counters(id);
      if (c.uidNext < uidNext) this.stmt.setFolderCounters.run(uidNext, c.highestModseq, id);
    })();
  }

  wasListed(account: string, folder: string): boolean {
    return this.stmt.getKv.get(`listed:${this.folderId(account, folder)}`) !== undefined;
  }

  /** Replaces the flags of `uids`; returns the MODSEQ of this change (also the folder's new HIGHESTMODSEQ). */
  setFlags(account: string, folder: string, uids: number | readonly number[], flags: readonly string[]): number {
    const id = this.folderId(account, folder);
    return this.db.transaction(() => {
      const c = this.counters(id);
      const modseq = c.highestModseq + 1;
      const list = typeof uids === 'number' ? [uids] : uids;
      const changed = this.stmt.setFlags.run(
        flagColumn(flags),
        isSeen(flags),
        modseq,
        id,
        JSON.stringify(list),
      ).changes;
      if (!changed) return c.highestModseq;
      this.stmt.setFolderCounters.run(c.uidNext, modseq, id);
      const cached = this.rowCache.get(id);
      if (cached) {
        const next = cached.slice();
        const shared = flagList(flagColumn(flags));
        for (const uid of list) {
          const i = findUid(next, uid);
          if (i >= 0) next[i] = { ...next[i], flags: shared, modseq };
        }
        this.rowCache.set(id, next);
      }
      return modseq;
    })();
  }

  /**
   * UIDs of `folder` expunged after `modseq` (QRESYNC, RFC 7162): `complete` when the folder
   * still keeps every tombstone since then (pruneTombstones); when it does not, the caller
   * answers as for a client that knows nothing.
   */
  vanishedSince(account: string, folder: string, modseq: number): { complete: boolean; uids: number[] } {
    const id = this.folderId(account, folder);
    let floor = 0;
    const uids: number[] = [];
    for (const [uid, m] of this.stmt.tombstonesSince.all(id, modseq) as Array<[number, number]>) {
      if (uid === 0) floor = m;
      else uids.push(uid);
    }
    return { complete: modseq >= floor, uids: uids.sort((a, b) => a - b) };
  }

  /**
   * A folder keeps the tombstones of its last `tombstonesKept` expunged messages (whole
   * expunges: those of one MODSEQ go together). Older ones are dropped, and a row of UID 0,
   * which no message has, keeps the highest MODSEQ dropped: a QRESYNC client that last synced
   * before it is told of everything it may know that is gone instead (vanishedSince).
   */
  private pruneTombstones(folderId: number): void {
    const count = this.stmt.tombstoneCount.get(folderId) as number;
    // pruned in steps of a tenth, not at every expunge past the limit
    if (count <= this.tombstonesKept * 1.1) return;
    const cutoff = this.stmt.tombstoneCutoff.get(folderId, this.tombstonesKept) as number | undefined;
    if (cutoff === undefined) return;
    this.stmt.pruneTombstones.run(folderId, cutoff);
    this.stmt.tombstone.run(folderId, 0, cutoff);
  }

  /** Removes the messages (a tombstone keeps uid + MODSEQ); returns what was removed. */
  expunge(account: string, folder: string, messageUids: readonly string[]): UidChange[] {
    if (!messageUids.length) return [];
    const id = this.folderId(account, folder);
    return this.db.transaction(() => {
      const c = this.counters(id);
      const modseq = c.highestModseq + 1;
      const removed = (
        this.stmt.deleteByMessageUids.all(id, JSON.stringify(messageUids)) as Array<{
          uid: number;
          message_uid: string;
        }>
      )
        .map((r) => ({ messageUid: r.message_uid, uid: r.uid, modseq }))
        .sort((a, b) => a.uid - b.uid);
      if (!removed.length) return [];
      for (const r of removed) this.stmt.tombstone.run(id, r.uid, modseq);
      this.pruneTombstones(id);
      this.stmt.setFolderCounters.run(c.uidNext, modseq, id);
      const cached = this.rowCache.get(id);
      if (cached) {
        const gone = new Set(removed.map((r) => r.uid));
        this.rowCache.set(
          id,
          cached.filter((r) => !gone.has(r.uid)),
        );
      }
      return removed;
    })();
  }

  /** Those of `messageUids` whose stored form is a placeholder (mime/describe.ts). */
  unconvertible(account: string, messageUids: readonly string[]): string[] {
    if (!messageUids.length) return [];
    return this.stmt.unconvertible.all(account, JSON.stringify(messageUids)) as string[];
  }

  /** One transaction for a whole batch: a sync stores thousands of these. */
  putMetadataRecords(account: string, records: readonly MetadataRecord[]): void {
    this.db.transaction(() => {
      for (const r of records) {
        this.stmt.putMetadata.run(account, r.messageUid, r.size, r.summary, r.header, r.message);
        this.stmt.putKeys.run(account, r.messageUid, ...keyValues(r.keys));
      }
      // rows numbered before their message was stored (a first sync numbers while its last
      // batches are described), or a re-described message of another size: one statement for
      // the batch, and those rows replaced in the folders' cached lists
      const ids = JSON.stringify(records.map((r) => r.messageUid));
      const sized = new Map<number, Array<[uid: number, size: number]>>();
      for (const [folderId, uid, size] of this.stmt.metadataSizeToRows.all({ account, ids }) as number[][]) {
        const rows = sized.get(folderId) ?? [];
        rows.push([uid, size]);
        sized.set(folderId, rows);
      }
      for (const [folderId, rows] of sized) this.resizeCachedRows(folderId, rows);
    })();
  }

  /** A cached folder's row list with the rows of these UIDs replaced by rows of their new sizes. */
  private resizeCachedRows(folderId: number, sizes: ReadonlyArray<[uid: number, size: number]>): void {
    const cached = this.rowCache.get(folderId);
    if (!cached) return;
    const next = cached.slice();
    for (const [uid, size] of sizes) {
      const at = findUid(next, uid);
      if (at >= 0) next[at] = { ...next[at], size };
    }
    this.rowCache.set(folderId, next);
  }

  /** Size and compiled ENVELOPE/BODYSTRUCTURE: what a metadata FETCH needs. */
  getSummaries(account: string, messageUids: readonly string[]): Map<string, MessageSummary> {
    const out = new Map<string, MessageSummary>();
    for (const [uid, size, summary] of this.stmt.getSummaries.all(account, JSON.stringify(messageUids)) as Array<
      [string, number, string]
    >) {
      out.set(uid, { size, compiled: JSON.parse(summary) as CompiledSummary });
    }
    return out;
  }

  /** Top-level header lines: header FETCH sections and SEARCH read nothing else of a message. */
  getHeaders(account: string, messageUids: readonly string[]): Map<string, string[]> {
    return this.column<string[]>(this.stmt.getHeaders, account, messageUids);
  }

  /**
   * The `keys` of each message that has them stored (messages described before they were stored
   * have not). With `folder`, holding most of `messageUids`, those of the folder's messages
   * are read through its rows (maybe a few more than asked for), which costs half the look-up
   * by a list of 10,000 ids.
   */
  getMessageKeys(
    account: string,
    messageUids: readonly string[],
    keys: readonly MessageKey[],
    folder?: string,
  ): Map<string, Partial<MessageKeys>> {
    const folderId = folder === undefined ? undefined : this.folderId(account, folder);
    const byFolder = folderId !== undefined && messageUids.length * 2 >= this.folderRows(folderId).length;
    const columns = keys.map((k) => `k.${keyColumns[k].name}`).join(', ');
    const read = `${byFolder ? 'folder' : 'ids'}: ${columns}`;
    let stmt = this.keyReads.get(read);
    if (!stmt) {
      stmt = this.db
        .prepare(
          byFolder
            ? `SELECT m.message_uid, ${columns} FROM messages m JOIN message_keys k ON k.account = ? AND k.message_uid = m.message_uid WHERE m.folder_id = ?`
            : `SELECT k.message_uid, ${columns} FROM message_keys k WHERE k.account = ? AND k.message_uid IN (SELECT value FROM json_each(?))`,
        )
        .raw(true);
      this.keyReads.set(read, stmt);
    }
    const out = new Map<string, Partial<MessageKeys>>();
    for (const row of stmt.all(account, byFolder ? folderId : JSON.stringify(messageUids)) as unknown[][])
      out.set(row[0] as string, readKeys(keys, row));
    return out;
  }

  /** Stores keys computed from the header lines of messages described before keys were stored. */
  putMessageKeys(account: string, entries: ReadonlyMap<string, MessageKeys>): void {
    this.db.transaction(() => {
      for (const [uid, keys] of entries) this.stmt.putKeys.run(account, uid, ...keyValues(keys));
    })();
  }

  /** The thread id of each message ("" when it has none). */
  getThreadIds(account: string, messageUids: readonly string[]): Map<string, string> {
    const rows = this.stmt.getThreadIds.all(account, JSON.stringify(messageUids)) as Array<[string, string]>;
    return new Map(rows);
  }

  /** Each message as the model holds it (the MIME tree is built from it again). */
  getMessages(account: string, messageUids: readonly string[]): Map<string, MailMessage> {
    return this.column(this.stmt.getMessages, account, messageUids, readStoredMessage);
  }

  private column<T>(
    stmt: { all(...args: unknown[]): unknown[] },
    account: string,
    messageUids: readonly string[],
    read: (json: string) => T = (json) => JSON.parse(json) as T,
  ): Map<string, T> {
    const out = new Map<string, T>();
    for (const [uid, json] of stmt.all(account, JSON.stringify(messageUids)) as Array<[string, string]>)
      out.set(uid, read(json));
    return out;
  }

  /** Drops cached messages no folder of the account holds any more; returns how many. */
  pruneMetadata(account: string): number {
    const pruned = this.stmt.pruneMetadata.run(account).changes;
    this.stmt.pruneKeys.run(account);
    return pruned;
  }
}
