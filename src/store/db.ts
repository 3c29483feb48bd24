import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { lowercaseAccounts } from './account-spelling';
import { sqliteSchema } from './tables';

/**
 * The bridge's SQLite file `<stateDir>/mailbridge.db`: owner-only (it maps mailboxes to their
 * mail metadata), WAL so IMAP reads do not wait for sync writes, versioned migrations.
 */

export type Database = BetterSqlite3.Database;

export const databaseFileName = 'mailbridge.db';

/**
 * Append-only: each entry moves an existing file's schema one version up. Never edit a shipped
 * entry. A new file is created from the description (./tables.ts) at the last version; a new
 * entry changes the description to match (test/store/schema-description.test.ts).
 */
/**
 * The columns of message_keys, which two migrations create: the table, and the same table as a
 * rowid table (a later migration, which copies the rows over).
 */
const messageKeysColumns = `account TEXT NOT NULL,
    message_uid TEXT NOT NULL,
    sent_date INTEGER,
    base_subject TEXT NOT NULL,
    reply_or_forward INTEGER NOT NULL,
    from_mailbox TEXT NOT NULL,
    to_mailbox TEXT NOT NULL,
    cc_mailbox TEXT NOT NULL,
    display_from TEXT NOT NULL,
    display_to TEXT NOT NULL,
    message_id TEXT,
    parents TEXT NOT NULL,
    subject_text TEXT NOT NULL,
    from_text TEXT NOT NULL,
    to_text TEXT NOT NULL,
    cc_text TEXT NOT NULL,
    PRIMARY KEY (account, message_uid)`;

export const migrations: string[] = [
  `
  CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE folders (
    id INTEGER PRIMARY KEY,
    account TEXT NOT NULL,
    name TEXT NOT NULL,
    uidvalidity INTEGER NOT NULL,
    uidnext INTEGER NOT NULL,
    highestmodseq INTEGER NOT NULL,
    UNIQUE (account, name)
  );
  CREATE TABLE messages (
    folder_id INTEGER NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
    uid INTEGER NOT NULL,
    message_uid TEXT NOT NULL,
    modseq INTEGER NOT NULL,
    flags TEXT NOT NULL,
    seen INTEGER NOT NULL,
    idate INTEGER NOT NULL,
    size INTEGER NOT NULL,
    PRIMARY KEY (folder_id, uid)
  ) WITHOUT ROWID;
  CREATE UNIQUE INDEX messages_by_message_uid ON messages (folder_id, message_uid);
  -- expunged uids with the modseq of their removal (for QRESYNC VANISHED)
  CREATE TABLE expunged (
    folder_id INTEGER NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
    uid INTEGER NOT NULL,
    modseq INTEGER NOT NULL,
    PRIMARY KEY (folder_id, uid)
  ) WITHOUT ROWID;
  -- per vendor message, shared by every folder the message is in
  CREATE TABLE metadata (
    account TEXT NOT NULL,
    message_uid TEXT NOT NULL,
    size INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (account, message_uid)
  ) WITHOUT ROWID;
  `,
  `
  -- messages only the bridge holds (drafts saved by clients); never sent to the vendor
  CREATE TABLE local_messages (
    account TEXT NOT NULL,
    message_uid TEXT NOT NULL,
    raw BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (account, message_uid)
  ) WITHOUT ROWID;
  -- Message-IDs submitted through the bridge's SMTP, to recognise the client's Sent copy
  CREATE TABLE submissions (
    account TEXT NOT NULL,
    message_id TEXT NOT NULL,
    submitted_at INTEGER NOT NULL,
    PRIMARY KEY (account, message_id)
  ) WITHOUT ROWID;
  -- submissions the vendor's spam filter held, for "mailbridge quarantine list/release"
  CREATE TABLE quarantine (
    quarantine_id TEXT PRIMARY KEY,
    account TEXT NOT NULL,
    recipient TEXT NOT NULL,
    subject TEXT NOT NULL,
    message_id TEXT,
    held_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    status TEXT NOT NULL,
    detail TEXT
  ) WITHOUT ROWID;
  `,
  `
  -- ENVELOPE and BODYSTRUCTURE apart from the compressed blob: FETCH of metadata reads only these
  ALTER TABLE metadata ADD COLUMN imap TEXT;
  `,
  `
  -- metadata rows are kilobytes (the deflated description): a WITHOUT ROWID table keeps them
  -- inside its key b-tree, which makes every insert and lookup slow (SQLite advises rowid
  -- tables for rows this large). Same columns, same key, now a rowid table.
  CREATE TABLE metadata_rowid (
    account TEXT NOT NULL,
    message_uid TEXT NOT NULL,
    size INTEGER NOT NULL,
    data BLOB NOT NULL,
    imap TEXT,
    PRIMARY KEY (account, message_uid)
  );
  INSERT INTO metadata_rowid (account, message_uid, size, data, imap)
    SELECT account, message_uid, size, data, imap FROM metadata;
  DROP TABLE metadata;
  ALTER TABLE metadata_rowid RENAME TO metadata;
  `,
  `
  -- the imap column now holds ENVELOPE/BODYSTRUCTURE as compiled wire text (mime/compiled-summary.ts);
  -- rows in the old form are recompiled from their description on their next FETCH
  UPDATE metadata SET imap = NULL;
  `,
  `
  -- the MIME tree is no longer stored but built again from the vendor JSON when a client reads
  -- content (mime/metadata-record.ts); the small columns come first, so FETCH and SEARCH, which
  -- read only them, stay on a row's first page instead of walking the JSON's overflow pages.
  -- Rows of the old form are dropped: a FETCH refills what it needs (vendor messages from the
  -- vendor, drafts from their bytes in local_messages).
  DROP TABLE metadata;
  CREATE TABLE message_cache (
    account TEXT NOT NULL,
    message_uid TEXT NOT NULL,
    size INTEGER NOT NULL,
    summary TEXT NOT NULL,
    header TEXT NOT NULL,
    message TEXT NOT NULL,
    PRIMARY KEY (account, message_uid)
  );
  `,
  `
  -- a draft's stored JSON now carries its text for SEARCH BODY/TEXT: drafts are described again
  -- from their own bytes on first use. Vendor messages keep the ENVELOPE/BODYSTRUCTURE they were
  -- first served with (a UID's answers never change); messages described from now on get NIL for
  -- a missing Subject and the default charset of text parts
  DELETE FROM message_cache WHERE message_uid LIKE 'local:%';
  `,
  `
  -- imap-core's getSize left out 2 bytes per empty leaf part (patched): the stored sizes of
  -- such messages grow by that, which is what their bytes always were. An empty part is an
  -- encoding followed by size 0 in the compiled BODYSTRUCTURE ("BASE64" 0 ...)
  UPDATE message_cache SET size = size + 2 * (
      length(json_extract(summary, '$.bodystructure'))
      - length(replace(json_extract(summary, '$.bodystructure'), '" 0 ', ''))
    ) / 4
    WHERE json_extract(summary, '$.bodystructure') LIKE '%" 0 %';
  UPDATE messages SET size = (
      SELECT c.size FROM message_cache c JOIN folders f ON f.account = c.account
      WHERE f.id = messages.folder_id AND c.message_uid = messages.message_uid
    )
    WHERE size != 0 AND EXISTS (
      SELECT 1 FROM message_cache c JOIN folders f ON f.account = c.account
      WHERE f.id = messages.folder_id AND c.message_uid = messages.message_uid AND c.size != messages.size
    );
  `,
  lowercaseAccounts([
    { table: 'folders', key: ['name'] },
    { table: 'message_cache', key: ['message_uid'] },
    { table: 'local_messages', key: ['message_uid'] },
    { table: 'submissions', key: ['message_id'] },
    { table: 'quarantine', key: [] },
  ]),
  `
  -- label folders a client created (CREATE Labels/<name>) that the vendor does not list yet, and
  -- renames of a label under way (renamed_from: the label still being moved to this one)
  CREATE TABLE local_labels (
    account TEXT NOT NULL,
    label TEXT NOT NULL,
    renamed_from TEXT,
    PRIMARY KEY (account, label)
  ) WITHOUT ROWID;
  `,
  `
  -- per message, what SORT, THREAD and SEARCH compare of it (./message-keys-table.ts); written
  -- when a message is described, and for messages described before this, on their first use
  CREATE TABLE message_keys (
    ${messageKeysColumns}
  ) WITHOUT ROWID;
  `,
  `
  -- a sync writes message_keys rows in the random order of message ids: in a WITHOUT ROWID table
  -- each of a commit's rows dirtied a page of its own; a rowid table appends them, only its key's
  -- index taking them in that order. Same columns, same key, now a rowid table.
  CREATE TABLE message_keys_rowid (
    ${messageKeysColumns}
  );
  INSERT INTO message_keys_rowid SELECT * FROM message_keys;
  DROP TABLE message_keys;
  ALTER TABLE message_keys_rowid RENAME TO message_keys;
  `,
];

function migrate(db: Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
  const row = db.prepare('SELECT version FROM schema_version').get() as { version: number } | undefined;
  const current = row?.version ?? 0;
  if (current > migrations.length)
    throw new Error(`state database schema v${current} is newer than this mailbridge (v${migrations.length})`);
  db.transaction(() => {
    if (current === 0) db.exec(sqliteSchema());
    else for (let v = current; v < migrations.length; v++) db.exec(migrations[v]);
    db.prepare('DELETE FROM schema_version').run();
    db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(migrations.length);
  })();
}

export function schemaVersion(db: Database): number {
  return (db.prepare('SELECT version FROM schema_version').get() as { version: number }).version;
}

/**
 * The page size of a new file: 16 KiB, not SQLite's 4. A synced message's `message_cache` row
 * (2-4 KB) then fits on its page instead of spilling into overflow pages, and the random
 * message ids of a sync's inserts dirty a fraction of the pages, each commit writing less to
 * the WAL (storing a cold sync's rows costs about a third less CPU).
 */
const pageSize = 16_384;

/**
 * The same schema for the PostgreSQL store's copy of the accounts this node owns (./pg), in a
 * private temporary database: SQLite keeps a small page cache and spills the rest to a file it
 * unlinks at once, so a large mailbox costs disk the OS pages in and out, not resident memory,
 * and nothing is left behind when the process dies. PostgreSQL holds the durable state.
 */
export function openMirrorDatabase(): Database {
  const db = new BetterSqlite3('');
  db.pragma(`page_size = ${pageSize}`);
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}

export function openDatabase(stateDir: string): Database {
  fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const file = path.join(stateDir, databaseFileName);
  // create it owner-only before SQLite does (SQLite gives the -wal/-shm files the same mode)
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  fs.chmodSync(file, 0o600);
  const db = new BetterSqlite3(file);
  // before anything writes the file: the size of a file that exists stays as it was made
  db.pragma(`page_size = ${pageSize}`);
  db.pragma('journal_mode = WAL');
  // NORMAL: a commit does not fsync on the event loop; the WAL is flushed off it before a
  // client is told OK, so a commit survives a power loss too (wal-durability.ts)
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // 4 MiB of page cache, not better-sqlite3's 16: past a large sync the cache stays full and is
  // resident memory; the OS keeps the file's pages cached all the same
  db.pragma('cache_size = -4096');
  migrate(db);
  return db;
}
