import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { migrations } from '../../src/store';
import { databaseFileName } from '../../src/store/db';

/** The state database as a version with the first `version` migrations left it, to fill by hand. */
export function databaseAtVersion(stateDir: string, version: number): BetterSqlite3.Database {
  const db = new BetterSqlite3(path.join(stateDir, databaseFileName));
  db.exec('CREATE TABLE schema_version (version INTEGER NOT NULL)');
  for (const m of migrations.slice(0, version)) db.exec(m);
  db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(version);
  return db;
}
