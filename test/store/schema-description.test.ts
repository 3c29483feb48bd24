import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { migrations, openDatabase } from '../../src/store/db';
import { databaseAtVersion } from '../support/old-database';
import { pgMigrations } from '../../src/store/pg/schema';
import { pgSchema, sqliteSchema } from '../../src/store/tables';
import { type Postgres, startPostgres } from '../support/postgres';

/**
 * The schema is described once (src/store/tables.ts) and new state is created from that
 * description; existing state is migrated by the append-only histories. Both roads must end
 * at the same tables, or a file migrated from an older release would differ from a new one.
 */

type Row = Record<string, unknown>;

/** Everything SQLite knows of a schema's shape: columns, keys, indexes, foreign keys, storage. */
function sqliteShape(db: BetterSqlite3.Database): Row {
  const names = (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>
  ).map((t) => t.name);
  const shape: Row = {};
  for (const name of names) {
    const indexes = db.prepare(`PRAGMA index_list(${name})`).all() as Array<{ name: string }>;
    shape[name] = {
      columns: db.prepare(`PRAGMA table_xinfo(${name})`).all(),
      indexes: indexes
        .map((i) => ({ ...i, seq: undefined, columns: db.prepare(`PRAGMA index_info(${i.name})`).all() }))
        .sort((a, b) => a.name.localeCompare(b.name)),
      foreignKeys: db.prepare(`PRAGMA foreign_key_list(${name})`).all(),
      rowid: (db.prepare('SELECT wr FROM pragma_table_list WHERE name = ?').get(name) as { wr: number }).wr === 0,
    };
  }
  return shape;
}

it('a new SQLite state file has the tables the migrations give an old one', () => {
  const migrated = new BetterSqlite3('');
  for (const m of migrations) migrated.exec(m);
  const described = new BetterSqlite3('');
  described.exec(sqliteSchema());
  expect(sqliteShape(described)).toEqual(sqliteShape(migrated));
  // the shape compared is a real one
  expect(Object.keys(sqliteShape(described))).toEqual([
    'expunged',
    'folders',
    'kv',
    'local_labels',
    'local_messages',
    'message_cache',
    'message_keys',
    'messages',
    'quarantine',
    'submissions',
  ]);
});

it('a state file of the previous release, made by the migrations, opens unchanged', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-schema-'));
  try {
    const old = databaseAtVersion(dir, migrations.length);
    old
      .prepare(
        "INSERT INTO folders (account, name, uidvalidity, uidnext, highestmodseq) VALUES ('a@x', 'INBOX', 7, 2, 3)",
      )
      .run();
    const before = old.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all();
    old.close();
    const db = openDatabase(dir);
    expect(db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all()).toEqual(before);
    expect(db.prepare('SELECT version FROM schema_version').get()).toEqual({ version: migrations.length });
    expect(db.prepare('SELECT name, uidvalidity FROM folders').all()).toEqual([{ name: 'INBOX', uidvalidity: 7 }]);
    db.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

let postgres: Postgres;
beforeAll(async () => {
  postgres = await startPostgres();
}, 120_000);
afterAll(async () => {
  await postgres?.stop();
});

/** Everything PostgreSQL knows of a schema's shape: columns with types, nullability and defaults; keys and indexes. */
async function pgShape(client: pg.Client): Promise<Row> {
  const columns = await client.query(
    `SELECT table_name, ordinal_position, column_name, data_type, is_nullable, column_default
     FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
  );
  const indexes = await client.query(
    "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname",
  );
  const constraints = await client.query(
    `SELECT table_name, constraint_name, constraint_type FROM information_schema.table_constraints
     WHERE table_schema = 'public' AND constraint_type <> 'CHECK' ORDER BY constraint_name`,
  );
  return { columns: columns.rows, indexes: indexes.rows, constraints: constraints.rows };
}

async function connected(name: string): Promise<pg.Client> {
  const client = new pg.Client(await postgres.createDatabase(name));
  await client.connect();
  return client;
}

it('a new PostgreSQL database has the tables the migrations give an old one', async () => {
  const migrated = await connected('migrated');
  const described = await connected('described');
  try {
    for (const m of pgMigrations) await migrated.query(m);
    await described.query(pgSchema());
    const shape = await pgShape(described);
    expect(shape).toEqual(await pgShape(migrated));
    expect((shape.indexes as Row[]).map((i) => i.indexname)).toContain('messages_pkey');
  } finally {
    await migrated.end();
    await described.end();
  }
});
