import type pg from 'pg';
import { lowercaseAccounts } from '../account-spelling';
import { pgSchema } from '../tables';

/**
 * The PostgreSQL schema of the state several bridge nodes share. Append-only: each entry moves
 * an existing database's schema one version up, and a shipped entry is never edited. A new
 * database is created from the description (../tables.ts) at the last version. Rows are keyed by what the
 * domain keys them by (account, folder name, UID), not by the SQLite file's row ids, so a
 * node's in-memory mirror (./mirror.ts) maps to them without ids of its own.
 */
export const pgMigrations: string[] = [
  `
  CREATE TABLE folders (
    account text NOT NULL,
    name text NOT NULL,
    uidvalidity bigint NOT NULL,
    uidnext bigint NOT NULL,
    highestmodseq bigint NOT NULL,
    listed boolean NOT NULL DEFAULT false,
    PRIMARY KEY (account, name)
  );
  CREATE TABLE messages (
    account text NOT NULL,
    folder text NOT NULL,
    uid bigint NOT NULL,
    message_uid text NOT NULL,
    modseq bigint NOT NULL,
    flags text NOT NULL,
    seen smallint NOT NULL,
    idate bigint NOT NULL,
    size bigint NOT NULL,
    PRIMARY KEY (account, folder, uid)
  );
  -- expunged uids with the modseq of their removal (QRESYNC VANISHED)
  CREATE TABLE expunged (
    account text NOT NULL,
    folder text NOT NULL,
    uid bigint NOT NULL,
    modseq bigint NOT NULL,
    PRIMARY KEY (account, folder, uid)
  );
  CREATE TABLE message_cache (
    account text NOT NULL,
    message_uid text NOT NULL,
    size bigint NOT NULL,
    summary text NOT NULL,
    header text NOT NULL,
    message text NOT NULL,
    PRIMARY KEY (account, message_uid)
  );
  CREATE TABLE local_messages (
    account text NOT NULL,
    message_uid text NOT NULL,
    raw bytea NOT NULL,
    created_at bigint NOT NULL,
    PRIMARY KEY (account, message_uid)
  );
  CREATE TABLE submissions (
    account text NOT NULL,
    message_id text NOT NULL,
    submitted_at bigint NOT NULL,
    PRIMARY KEY (account, message_id)
  );
  CREATE TABLE quarantine (
    quarantine_id text PRIMARY KEY,
    account text NOT NULL,
    recipient text NOT NULL,
    subject text NOT NULL,
    message_id text,
    held_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    status text NOT NULL,
    detail text
  );
  -- token pairs and password hashes, sealed with AES-256-GCM (./secret-box.ts)
  CREATE TABLE secrets (
    mailbox text PRIMARY KEY,
    sealed bytea NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
  );
  `,
  `
  -- one owner node per account; epoch grows at every change of owner and fences writes
  -- (./leases.ts). Expiry is PostgreSQL's clock, the one every node shares.
  CREATE TABLE leases (
    account text PRIMARY KEY,
    owner text NOT NULL,
    epoch bigint NOT NULL,
    expires_at timestamptz NOT NULL
  );
  -- the nodes alive (renewing), among which accounts are spread (./ownership.ts), and where
  -- other nodes reach their IMAP and SMTP listeners (host:port) to forward a client
  CREATE TABLE nodes (
    node text PRIMARY KEY,
    expires_at timestamptz NOT NULL,
    imap text,
    smtp text
  );
  `,
  lowercaseAccounts([
    { table: 'folders', key: ['name'] },
    { table: 'messages', key: ['folder', 'uid'] },
    { table: 'expunged', key: ['folder', 'uid'] },
    { table: 'message_cache', key: ['message_uid'] },
    { table: 'local_messages', key: ['message_uid'] },
    { table: 'submissions', key: ['message_id'] },
    { table: 'quarantine', key: [] },
  ]),
  `
  -- label folders a client created that the vendor does not list yet, and label renames under way
  CREATE TABLE local_labels (
    account text NOT NULL,
    label text NOT NULL,
    renamed_from text,
    PRIMARY KEY (account, label)
  );
  `,
  `
  -- per message, what SORT, THREAD and SEARCH compare of it (../message-keys-table.ts); written
  -- when a message is described, and for messages described before this, on their first use
  CREATE TABLE message_keys (
    account text NOT NULL,
    message_uid text NOT NULL,
    sent_date bigint,
    base_subject text NOT NULL,
    reply_or_forward smallint NOT NULL,
    from_mailbox text NOT NULL,
    to_mailbox text NOT NULL,
    cc_mailbox text NOT NULL,
    display_from text NOT NULL,
    display_to text NOT NULL,
    message_id text,
    parents text NOT NULL,
    subject_text text NOT NULL,
    from_text text NOT NULL,
    to_text text NOT NULL,
    cc_text text NOT NULL,
    PRIMARY KEY (account, message_uid)
  );
  `,
];

/** Any fixed number: nodes starting together migrate one after the other. */
const migrationLock = 0x6d62_7067;

export async function migratePg(pool: pg.Pool): Promise<number> {
  const client = await pool.connect();
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [migrationLock]);
    await client.query('CREATE TABLE IF NOT EXISTS mailbridge_schema (version integer NOT NULL)');
    const { rows } = await client.query<{ version: number }>('SELECT version FROM mailbridge_schema');
    const current = rows[0]?.version ?? 0;
    if (current > pgMigrations.length)
      throw new Error(`PostgreSQL state schema v${current} is newer than this mailbridge (v${pgMigrations.length})`);
    if (current === 0) await client.query(pgSchema());
    else for (let v = current; v < pgMigrations.length; v++) await client.query(pgMigrations[v]);
    await client.query('DELETE FROM mailbridge_schema');
    await client.query('INSERT INTO mailbridge_schema (version) VALUES ($1)', [pgMigrations.length]);
    await client.query('COMMIT');
    return pgMigrations.length;
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
}
