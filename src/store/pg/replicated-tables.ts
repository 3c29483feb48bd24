import type { Database } from '../db';

/**
 * How each table of a node's in-memory mirror (the SQLite schema, ../db.ts) maps onto the
 * PostgreSQL schema (./schema.ts): the triggers that note a changed row's key, the query that
 * reads the changed rows back as PostgreSQL rows, and how a PostgreSQL row is loaded. The
 * mirror keys folders by a row id of its own; PostgreSQL by (account, folder name).
 */

export type PgType = 'text' | 'bigint' | 'smallint' | 'bytea' | 'boolean';

export interface ReplicatedTable {
  /** Tag of its keys in the dirty list, and its PostgreSQL table. */
  name: string;
  columns: ReadonlyArray<readonly [string, PgType]>;
  key: readonly string[];
  /** Mirror tables whose writes mark a key, with its two parts as SQL over `$` (NEW or OLD). */
  watch: ReadonlyArray<{ table: string; a: string; b: string; when?: string }>;
  /** The current rows of the dirty keys, in `columns` order. */
  current: string;
  /** PostgreSQL keys of dirty entries whose row is gone; null when rows are never deleted. */
  gone: string | null;
  /** Inserts one PostgreSQL row (values in `columns` order) into the mirror. */
  load(db: Database): (row: unknown[]) => void;
}

const dirty = (name: string) => `FROM temp.dirty d WHERE d.tbl = '${name}'`;

/** Tables keyed by (account, one text column): the same everywhere but for names. */
function byAccount(
  name: string,
  keyColumn: string,
  columns: ReadonlyArray<readonly [string, PgType]>,
  deletable: boolean,
): ReplicatedTable {
  const names = columns.map(([c]) => c);
  const match = `t.account = d.a AND t.${keyColumn} = d.b`;
  return {
    name,
    columns,
    key: ['account', keyColumn],
    watch: [{ table: name, a: '$.account', b: `$.${keyColumn}` }],
    current: `SELECT ${names.map((c) => `t.${c}`).join(', ')} ${dirty(name).replace('WHERE', `JOIN ${name} t ON ${match} WHERE`)}`,
    gone: deletable ? `SELECT d.a, d.b ${dirty(name)} AND NOT EXISTS (SELECT 1 FROM ${name} t WHERE ${match})` : null,
    load: (db) => {
      const insert = db.prepare(
        `INSERT OR REPLACE INTO ${name} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
      );
      return (row) => insert.run(...row);
    },
  };
}

/** Tables keyed by (folder, uid): the mirror's folder id becomes (account, folder name). */
function byFolderUid(name: string, columns: ReadonlyArray<readonly [string, PgType]>, deletable: boolean) {
  const rest = columns.slice(3).map(([c]) => c);
  const match = 't.folder_id = d.a AND t.uid = d.b';
  const table: ReplicatedTable = {
    name,
    columns,
    key: ['account', 'folder', 'uid'],
    watch: [{ table: name, a: '$.folder_id', b: '$.uid' }],
    current: `SELECT f.account, f.name, t.uid, ${rest.map((c) => `t.${c}`).join(', ')} ${dirty(name).replace(
      'WHERE',
      `JOIN ${name} t ON ${match} JOIN folders f ON f.id = d.a WHERE`,
    )}`,
    gone: deletable
      ? `SELECT f.account, f.name, d.b ${dirty(name).replace('WHERE', 'JOIN folders f ON f.id = d.a WHERE')}
         AND NOT EXISTS (SELECT 1 FROM ${name} t WHERE ${match})`
      : null,
    load: (db) => {
      const insert = db.prepare(
        `INSERT OR REPLACE INTO ${name} (folder_id, uid, ${rest.join(', ')})
         VALUES ((SELECT id FROM folders WHERE account = ? AND name = ?), ?, ${rest.map(() => '?').join(', ')})`,
      );
      return (row) => insert.run(...row);
    },
  };
  return table;
}

const folders: ReplicatedTable = {
  name: 'folders',
  columns: [
    ['account', 'text'],
    ['name', 'text'],
    ['uidvalidity', 'bigint'],
    ['uidnext', 'bigint'],
    ['highestmodseq', 'bigint'],
    ['listed', 'boolean'],
  ],
  key: ['account', 'name'],
  watch: [
    { table: 'folders', a: '$.id', b: '0' },
    // "listed once" is a kv row of the SQLite schema, a column here
    { table: 'kv', a: 'CAST(substr($.key, 8) AS INTEGER)', b: '0', when: "$.key LIKE 'listed:%'" },
  ],
  current: `SELECT f.account, f.name, f.uidvalidity, f.uidnext, f.highestmodseq,
      EXISTS (SELECT 1 FROM kv WHERE kv.key = 'listed:' || f.id) ${dirty('folders').replace(
        'WHERE',
        'JOIN folders f ON f.id = d.a WHERE',
      )}`,
  gone: null,
  load: (db) => {
    const insert = db.prepare(
      'INSERT INTO folders (account, name, uidvalidity, uidnext, highestmodseq) VALUES (?, ?, ?, ?, ?) RETURNING id',
    );
    const listed = db.prepare("INSERT OR REPLACE INTO kv (key, value) VALUES (?, '1')");
    // a folder's UIDVALIDITY was given out once: a folder made later gets a higher one
    const last = db.prepare(
      `INSERT INTO kv (key, value) VALUES ('last_uidvalidity', ?)
       ON CONFLICT (key) DO UPDATE SET value = max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))`,
    );
    return (row) => {
      const { id } = insert.get(...row.slice(0, 5)) as { id: number };
      if (row[5]) listed.run(`listed:${id}`);
      last.run(String(row[2]));
    };
  },
};

export const replicatedTables: readonly ReplicatedTable[] = [
  folders,
  byFolderUid(
    'messages',
    [
      ['account', 'text'],
      ['folder', 'text'],
      ['uid', 'bigint'],
      ['message_uid', 'text'],
      ['modseq', 'bigint'],
      ['flags', 'text'],
      ['seen', 'smallint'],
      ['idate', 'bigint'],
      ['size', 'bigint'],
    ],
    true,
  ),
  byFolderUid(
    'expunged',
    [
      ['account', 'text'],
      ['folder', 'text'],
      ['uid', 'bigint'],
      ['modseq', 'bigint'],
    ],
    // old tombstones are pruned (MailStore.pruneTombstones)
    true,
  ),
  byAccount(
    'message_cache',
    'message_uid',
    [
      ['account', 'text'],
      ['message_uid', 'text'],
      ['size', 'bigint'],
      ['summary', 'text'],
      ['header', 'text'],
      ['message', 'text'],
    ],
    true,
  ),
  byAccount(
    'local_messages',
    'message_uid',
    [
      ['account', 'text'],
      ['message_uid', 'text'],
      ['raw', 'bytea'],
      ['created_at', 'bigint'],
    ],
    true,
  ),
  byAccount(
    'local_labels',
    'label',
    [
      ['account', 'text'],
      ['label', 'text'],
      ['renamed_from', 'text'],
    ],
    true,
  ),
  byAccount(
    'submissions',
    'message_id',
    [
      ['account', 'text'],
      ['message_id', 'text'],
      ['submitted_at', 'bigint'],
    ],
    false,
  ),
  {
    ...byAccount(
      'quarantine',
      'quarantine_id',
      [
        ['quarantine_id', 'text'],
        ['account', 'text'],
        ['recipient', 'text'],
        ['subject', 'text'],
        ['message_id', 'text'],
        ['held_at', 'bigint'],
        ['expires_at', 'bigint'],
        ['status', 'text'],
        ['detail', 'text'],
      ],
      false,
    ),
    key: ['quarantine_id'],
    watch: [{ table: 'quarantine', a: '$.quarantine_id', b: "''" }],
    current: `SELECT t.quarantine_id, t.account, t.recipient, t.subject, t.message_id, t.held_at, t.expires_at,
        t.status, t.detail ${dirty('quarantine').replace('WHERE', 'JOIN quarantine t ON t.quarantine_id = d.a WHERE')}`,
  },
];
