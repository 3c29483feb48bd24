import { openMirrorDatabase, type Database } from '../db';
import { type ReplicatedTable, replicatedTables } from './replicated-tables';
import { tablesOf } from '../tables';

/**
 * A node's copy of the state of the accounts it serves: the SQLite schema in a private
 * temporary database (see openMirrorDatabase), so the domain reads and writes it synchronously
 * as it does the state file. Triggers note the key of
 * every row written; `takeChanges` reads those rows back (or notes them gone) as one batch for
 * PostgreSQL, at once, so a batch is the state at one instant and batches replay in order.
 */

export interface TableChanges {
  table: ReplicatedTable;
  rows: unknown[][];
  gone: unknown[][];
}

export type ChangeBatch = TableChanges[];

/** The mirror's tables of an account: a folder's rows first, then those with an account column. */
const folderTables = tablesOf('sqlite')
  .filter((t) => t.ownedBy === 'folder')
  .map((t) => t.name);
const accountTables = tablesOf('sqlite')
  .filter((t) => t.columns.some((c) => c.name === 'account'))
  .map((t) => t.name);

export class Mirror {
  readonly db: Database;
  private recording = true;
  private readonly reads = new Map<string, { all(): unknown[] }>();

  /** `onWrite` is told of every write recorded (many times per transaction). */
  constructor(onWrite: () => void) {
    this.db = openMirrorDatabase();
    this.db.function('mirror_recording', { deterministic: false }, () => {
      if (!this.recording) return 0;
      onWrite();
      return 1;
    });
    this.db.exec('CREATE TEMP TABLE dirty (tbl TEXT NOT NULL, a, b, PRIMARY KEY (tbl, a, b))');
    for (const table of replicatedTables)
      table.watch.forEach((w, i) => {
        for (const [event, row] of [
          ['INSERT', 'NEW'],
          ['UPDATE', 'NEW'],
          ['DELETE', 'OLD'],
        ] as const) {
          const when = [w.when?.replaceAll('$', row), 'mirror_recording()'].filter(Boolean).join(' AND ');
          this.db.exec(
            `CREATE TEMP TRIGGER ${table.name}_${i}_${event.toLowerCase()} AFTER ${event} ON main.${w.table}
             WHEN ${when} BEGIN
               INSERT OR IGNORE INTO dirty (tbl, a, b) VALUES ('${table.name}', ${w.a.replaceAll('$', row)}, ${w.b.replaceAll('$', row)});
             END`,
          );
        }
      });
  }

  /** Copies rows read from PostgreSQL in without recording them as changes. */
  load(rowsByTable: ReadonlyMap<ReplicatedTable, unknown[][]>): void {
    this.unrecorded(() => {
      for (const table of replicatedTables) {
        const insert = table.load(this.db);
        for (const row of rowsByTable.get(table) ?? []) insert(row);
      }
    });
  }

  /** Drops an account's rows (and changes not sent yet): another node owns it now. */
  unload(account: string): void {
    const folders = 'SELECT id FROM folders WHERE lower(account) = lower(?)';
    this.unrecorded(() => {
      this.db.prepare(`DELETE FROM temp.dirty WHERE a IN (${folders}) OR lower(a) = lower(?)`).run(account, account);
      this.db.prepare(`DELETE FROM kv WHERE key IN (SELECT 'listed:' || id FROM (${folders}))`).run(account);
      for (const table of folderTables)
        this.db.prepare(`DELETE FROM ${table} WHERE folder_id IN (${folders})`).run(account);
      for (const table of accountTables)
        this.db.prepare(`DELETE FROM ${table} WHERE lower(account) = lower(?)`).run(account);
    });
  }

  private unrecorded(fn: () => void): void {
    this.recording = false;
    try {
      this.db.transaction(fn)();
    } finally {
      this.recording = true;
    }
  }

  /** The rows written since the last call, as they are now; empty when nothing was. */
  takeChanges(): ChangeBatch {
    return this.db.transaction(() => {
      const batch: ChangeBatch = [];
      for (const table of replicatedTables) {
        const rows = this.read(table.current);
        const gone = table.gone ? this.read(table.gone) : [];
        if (rows.length || gone.length) batch.push({ table, rows, gone });
      }
      this.db.prepare('DELETE FROM dirty').run();
      return batch;
    })();
  }

  private read(sql: string): unknown[][] {
    let stmt = this.reads.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql).raw(true);
      this.reads.set(sql, stmt);
    }
    return stmt.all() as unknown[][];
  }

  close(): void {
    this.db.close();
  }
}
