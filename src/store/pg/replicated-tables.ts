import type { Database } from '../db';
import { type PgType, pgColumns, pgKeyOf, pgTypes, type TableDescription, tables } from '../tables';

/**
 * How each table of a node's in-memory mirror (the SQLite schema, ../db.ts) maps onto the
 * PostgreSQL schema (./schema.ts): the triggers that note a changed row's key, the query that
 * reads the changed rows back as PostgreSQL rows, and how a PostgreSQL row is loaded, for
 * each table the description (../tables.ts) marks replicated. The mirror keys folders by a row
 * id of its own; PostgreSQL by (account, folder name).
 */

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

/** The PostgreSQL columns of a described table. */
const columnsOf = (t: TableDescription) => pgColumns(t).map((c) => [c.name, pgTypes[c.type]] as const);

/** Tables keyed by one or two of their own columns: the same everywhere but for names. */
function byKey(t: TableDescription, deletable: boolean): ReplicatedTable {
  const { name } = t;
  const columns = columnsOf(t);
  const names = columns.map(([c]) => c);
  const key = pgKeyOf(t);
  const parts = ['a', 'b'].slice(0, key.length);
  const match = key.map((c, i) => `t.${c} = d.${parts[i]}`).join(' AND ');
  return {
    name,
    columns,
    key,
    watch: [{ table: name, a: `$.${key[0]}`, b: key[1] ? `$.${key[1]}` : "''" }],
    current: `SELECT ${names.map((c) => `t.${c}`).join(', ')} ${dirty(name).replace('WHERE', `JOIN ${name} t ON ${match} WHERE`)}`,
    gone: deletable
      ? `SELECT ${parts.map((p) => `d.${p}`).join(', ')} ${dirty(name)} AND NOT EXISTS (SELECT 1 FROM ${name} t WHERE ${match})`
      : null,
    load: (db) => {
      const insert = db.prepare(
        `INSERT OR REPLACE INTO ${name} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
      );
      return (row) => insert.run(...row);
    },
  };
}

/** Tables keyed by (folder, uid): the mirror's folder id becomes (account, folder name). */
function byFolderUid(t: TableDescription, deletable: boolean) {
  const { name } = t;
  const columns = columnsOf(t);
  const rest = columns.slice(3).map(([c]) => c);
  const match = 't.folder_id = d.a AND t.uid = d.b';
  const table: ReplicatedTable = {
    name,
    columns,
    key: pgKeyOf(t),
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

/** Folders: the mirror's row id becomes (account, name), and "listed once" a kv row. */
const folders = (t: TableDescription): ReplicatedTable => ({
  name: t.name,
  columns: columnsOf(t),
  key: pgKeyOf(t),
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
});

export const replicatedTables: readonly ReplicatedTable[] = tables.flatMap((t) => {
  if (!t.replicated) return [];
  if (t.sqliteId) return [folders(t)];
  return [t.ownedBy ? byFolderUid(t, t.replicated.deletable) : byKey(t, t.replicated.deletable)];
});
