import { keyColumns, messageKeyNames } from './message-keys-table';

/**
 * The state's tables, described once. From this description come the SQLite schema of a new
 * state file and of a node's mirror (./db.ts), the PostgreSQL schema of a new shared database
 * (./pg/schema.ts), the tables the mirror replicates (./pg/replicated-tables.ts) and drops per
 * account (./pg/mirror.ts), and the tables `migrate-state` copies (./migrate-state.ts).
 * Existing state is brought here by the append-only migrations of ./db.ts and ./pg/schema.ts;
 * test/store/schema-description.test.ts checks that both histories end at this description.
 */

/**
 * A column's values: `integer` is SQLite's INTEGER and PostgreSQL's bigint, `smallint` a
 * small number (a 0/1 flag), `bytes` BLOB and bytea. `boolean` and `timestamp` are
 * PostgreSQL's only.
 */
export type ColumnType = 'text' | 'integer' | 'smallint' | 'bytes' | 'boolean' | 'timestamp';

export interface Column {
  name: string;
  type: ColumnType;
  nullable?: boolean;
  /** PostgreSQL's default (SQL). */
  pgDefault?: string;
}

export type Store = 'sqlite' | 'pg';

export interface TableDescription {
  name: string;
  /** The stores that have the table. */
  stores: readonly Store[];
  /**
   * Whose rows these are: one folder's (SQLite: `folder_id` referencing folders, deleted with
   * it; PostgreSQL: `account` and `folder`, the folder's name), or nobody's in particular.
   */
  ownedBy?: 'folder';
  /** In order, after the owner's columns. */
  columns: readonly Column[];
  /** The primary key; `folder` stands for the owner's columns. */
  key: readonly string[];
  /** SQLite: rows numbered by an `id` of their own (the key then unique), rather than keyed as in PostgreSQL. */
  sqliteId?: boolean;
  /**
   * SQLite: a rowid table, which keeps rows of kilobytes off the key b-tree and appends rows
   * written in random key order; the others are WITHOUT ROWID.
   */
  sqliteRowid?: boolean;
  /** SQLite: unique indexes besides the key (`folder` as in `key`). */
  sqliteUnique?: ReadonlyArray<{ name: string; columns: readonly string[] }>;
  /** Copied to PostgreSQL through the mirror; `deletable` when rows are deleted, not only written. */
  replicated?: { deletable: boolean };
}

const account: Column = { name: 'account', type: 'text' };

/** In an order their foreign keys accept (folders before the rows of folders). */
export const tables: readonly TableDescription[] = [
  {
    name: 'kv',
    stores: ['sqlite'],
    columns: [
      { name: 'key', type: 'text' },
      { name: 'value', type: 'text' },
    ],
    key: ['key'],
  },
  {
    name: 'folders',
    stores: ['sqlite', 'pg'],
    columns: [
      account,
      { name: 'name', type: 'text' },
      { name: 'uidvalidity', type: 'integer' },
      { name: 'uidnext', type: 'integer' },
      { name: 'highestmodseq', type: 'integer' },
      // "listed once": a kv row in SQLite (`listed:<folder id>`)
      { name: 'listed', type: 'boolean', pgDefault: 'false' },
    ],
    key: ['account', 'name'],
    sqliteId: true,
    sqliteRowid: true,
    replicated: { deletable: false },
  },
  {
    name: 'messages',
    stores: ['sqlite', 'pg'],
    ownedBy: 'folder',
    columns: [
      { name: 'uid', type: 'integer' },
      { name: 'message_uid', type: 'text' },
      { name: 'modseq', type: 'integer' },
      { name: 'flags', type: 'text' },
      { name: 'seen', type: 'smallint' },
      { name: 'idate', type: 'integer' },
      { name: 'size', type: 'integer' },
    ],
    key: ['folder', 'uid'],
    sqliteUnique: [{ name: 'messages_by_message_uid', columns: ['folder', 'message_uid'] }],
    replicated: { deletable: true },
  },
  {
    // expunged uids with the modseq of their removal (QRESYNC VANISHED); old ones are pruned
    name: 'expunged',
    stores: ['sqlite', 'pg'],
    ownedBy: 'folder',
    columns: [
      { name: 'uid', type: 'integer' },
      { name: 'modseq', type: 'integer' },
    ],
    key: ['folder', 'uid'],
    replicated: { deletable: true },
  },
  {
    // per message, shared by every folder the message is in
    name: 'message_cache',
    stores: ['sqlite', 'pg'],
    columns: [
      account,
      { name: 'message_uid', type: 'text' },
      { name: 'size', type: 'integer' },
      { name: 'summary', type: 'text' },
      { name: 'header', type: 'text' },
      { name: 'message', type: 'text' },
    ],
    key: ['account', 'message_uid'],
    sqliteRowid: true,
    replicated: { deletable: true },
  },
  {
    // per message, what SORT, THREAD and SEARCH compare of it, one column a key (./message-keys-table.ts)
    name: 'message_keys',
    stores: ['sqlite', 'pg'],
    columns: [
      account,
      { name: 'message_uid', type: 'text' },
      ...messageKeyNames.map((k) => keyColumns[k]).map(({ name, type, nullable }) => ({ name, type, nullable })),
    ],
    key: ['account', 'message_uid'],
    // written in the random order of message ids: a rowid table appends them (./db.ts)
    sqliteRowid: true,
    replicated: { deletable: true },
  },
  {
    // messages only the bridge holds (drafts saved by clients, held submissions); never sent to the vendor
    name: 'local_messages',
    stores: ['sqlite', 'pg'],
    columns: [
      account,
      { name: 'message_uid', type: 'text' },
      { name: 'raw', type: 'bytes' },
      { name: 'created_at', type: 'integer' },
    ],
    key: ['account', 'message_uid'],
    replicated: { deletable: true },
  },
  {
    // label folders a client created (CREATE Labels/<name>) that the vendor does not list yet, and
    // renames of a label under way (renamed_from: the label still being moved to this one)
    name: 'local_labels',
    stores: ['sqlite', 'pg'],
    columns: [account, { name: 'label', type: 'text' }, { name: 'renamed_from', type: 'text', nullable: true }],
    key: ['account', 'label'],
    replicated: { deletable: true },
  },
  {
    // Message-IDs submitted through the bridge's SMTP, to recognise the client's Sent copy
    name: 'submissions',
    stores: ['sqlite', 'pg'],
    columns: [account, { name: 'message_id', type: 'text' }, { name: 'submitted_at', type: 'integer' }],
    key: ['account', 'message_id'],
    replicated: { deletable: false },
  },
  {
    // submissions the vendor's spam filter held (../domain/quarantine.ts)
    name: 'quarantine',
    stores: ['sqlite', 'pg'],
    columns: [
      { name: 'quarantine_id', type: 'text' },
      account,
      { name: 'recipient', type: 'text' },
      { name: 'subject', type: 'text' },
      { name: 'message_id', type: 'text', nullable: true },
      { name: 'held_at', type: 'integer' },
      { name: 'expires_at', type: 'integer' },
      { name: 'status', type: 'text' },
      { name: 'detail', type: 'text', nullable: true },
    ],
    key: ['quarantine_id'],
    replicated: { deletable: false },
  },
  {
    // token pairs and password hashes, sealed with AES-256-GCM (./pg/secret-box.ts); a node
    // without PostgreSQL keeps them in secrets.json (./secrets.ts)
    name: 'secrets',
    stores: ['pg'],
    columns: [
      { name: 'mailbox', type: 'text' },
      { name: 'sealed', type: 'bytes' },
      { name: 'updated_at', type: 'timestamp', pgDefault: 'now()' },
    ],
    key: ['mailbox'],
  },
  {
    // one owner node per account; epoch grows at every change of owner and fences writes
    // (./pg/leases.ts). Expiry is PostgreSQL's clock, the one every node shares.
    name: 'leases',
    stores: ['pg'],
    columns: [
      account,
      { name: 'owner', type: 'text' },
      { name: 'epoch', type: 'integer' },
      { name: 'expires_at', type: 'timestamp' },
    ],
    key: ['account'],
  },
  {
    // the nodes alive (renewing), among which accounts are spread (./pg/ownership.ts), and
    // where other nodes reach their IMAP and SMTP listeners (host:port) to forward a client
    name: 'nodes',
    stores: ['pg'],
    columns: [
      { name: 'node', type: 'text' },
      { name: 'expires_at', type: 'timestamp' },
      { name: 'imap', type: 'text', nullable: true },
      { name: 'smtp', type: 'text', nullable: true },
    ],
    key: ['node'],
  },
];

const sqliteTypes: Partial<Record<ColumnType, string>> = {
  text: 'TEXT',
  integer: 'INTEGER',
  smallint: 'INTEGER',
  bytes: 'BLOB',
};

export const pgTypes = {
  text: 'text',
  integer: 'bigint',
  smallint: 'smallint',
  bytes: 'bytea',
  boolean: 'boolean',
  timestamp: 'timestamptz',
} as const satisfies Record<ColumnType, string>;

export type PgType = (typeof pgTypes)[ColumnType];

/** The tables one store has. */
export function tablesOf(store: Store): TableDescription[] {
  return tables.filter((t) => t.stores.includes(store));
}

const notNull = (c: Column) => (c.nullable ? '' : ' NOT NULL');

/** The columns a table has in the SQLite schema (the owner's `folder_id` apart). */
function sqliteColumns(t: TableDescription): Column[] {
  return t.columns.filter((c) => sqliteTypes[c.type]);
}

const sqliteKey = (columns: readonly string[]) => columns.map((c) => (c === 'folder' ? 'folder_id' : c)).join(', ');

/** The SQLite schema of a new state file (or mirror). */
export function sqliteSchema(): string {
  return tablesOf('sqlite')
    .flatMap((t) => {
      const lines = [
        ...(t.sqliteId ? ['id INTEGER PRIMARY KEY'] : []),
        ...(t.ownedBy ? ['folder_id INTEGER NOT NULL REFERENCES folders(id) ON DELETE CASCADE'] : []),
        ...sqliteColumns(t).map((c) => `${c.name} ${sqliteTypes[c.type]}${notNull(c)}`),
        t.sqliteId ? `UNIQUE (${sqliteKey(t.key)})` : `PRIMARY KEY (${sqliteKey(t.key)})`,
      ];
      const storage = t.sqliteRowid ? '' : ' WITHOUT ROWID';
      return [
        `CREATE TABLE ${t.name} (\n  ${lines.join(',\n  ')}\n)${storage};`,
        ...(t.sqliteUnique ?? []).map((u) => `CREATE UNIQUE INDEX ${u.name} ON ${t.name} (${sqliteKey(u.columns)});`),
      ];
    })
    .join('\n');
}

/** A table's columns in PostgreSQL, the owner's included. */
export function pgColumns(t: TableDescription): Column[] {
  const owner: Column[] = t.ownedBy ? [account, { name: 'folder', type: 'text' }] : [];
  return [...owner, ...t.columns];
}

const pgKey = (columns: readonly string[]) => columns.flatMap((c) => (c === 'folder' ? ['account', 'folder'] : [c]));

/** A table's primary key in PostgreSQL. */
export function pgKeyOf(t: TableDescription): string[] {
  return pgKey(t.key);
}

/** The PostgreSQL schema of a new shared database. */
export function pgSchema(): string {
  return tablesOf('pg')
    .map((t) => {
      const lines = [
        ...pgColumns(t).map(
          (c) => `${c.name} ${pgTypes[c.type]}${notNull(c)}${c.pgDefault ? ` DEFAULT ${c.pgDefault}` : ''}`,
        ),
        `PRIMARY KEY (${pgKeyOf(t).join(', ')})`,
      ];
      return `CREATE TABLE ${t.name} (\n  ${lines.join(',\n  ')}\n);`;
    })
    .join('\n');
}
