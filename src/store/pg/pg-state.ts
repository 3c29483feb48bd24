import pg from 'pg';
import { registerSecret } from '../../log';
import { MailStore } from '../mail-store';
import { QuarantineStore } from '../quarantine';
import type { StateStore } from '../state-store';
import { Mirror } from './mirror';
import { PgTokenVault } from './pg-token-vault';
import { PgWriter } from './pg-writer';
import { type ReplicatedTable, replicatedTables } from './replicated-tables';
import { migratePg } from './schema';
import { secretBox } from './secret-box';

/**
 * The state of several bridge nodes in one PostgreSQL database. A node mirrors the accounts it
 * serves in memory (./mirror.ts): the domain reads and writes that synchronously, and every
 * write reaches PostgreSQL in a transaction (./pg-writer.ts) before it is published to
 * sessions or answered OK. Token pairs are sealed rows, written before they are used.
 */

export interface PgStateOptions {
  /** A node-postgres connection string or settings. */
  connection: string | pg.PoolConfig;
  secretKey: string;
  /** Accounts whose state is mirrored; every account by default (the CLI, migrations). */
  accounts?: readonly string[];
}

/** bigint columns (UIDs, MODSEQs, dates in ms) as numbers: all stay below 2^53. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export function pgPool(connection: string | pg.PoolConfig): pg.Pool {
  if (typeof connection === 'string') registerSecret(connection);
  const config = typeof connection === 'string' ? { connectionString: connection } : connection;
  const pool = new pg.Pool({ ...config, types, max: 8 });
  // an idle connection lost (a restarted server): the pool opens another on next use, and a
  // query on a lost one fails to its caller
  pool.on('error', () => undefined);
  return pool;
}

async function readRows(pool: pg.Pool, accounts: readonly string[] | undefined) {
  const rows = new Map<ReplicatedTable, unknown[][]>();
  for (const table of replicatedTables) {
    const where = accounts ? ' WHERE lower(account) = ANY($1::text[])' : '';
    const { rows: found } = await pool.query({
      text: `SELECT ${table.columns.map(([c]) => c).join(', ')} FROM ${table.name}${where}`,
      values: accounts ? [accounts.map((a) => a.toLowerCase())] : [],
      rowMode: 'array',
    });
    rows.set(table, found as unknown[][]);
  }
  return rows;
}

export async function openPgState(opts: PgStateOptions): Promise<StateStore> {
  const box = secretBox(opts.secretKey);
  const pool = pgPool(opts.connection);
  try {
    const client = await pool.connect();
    try {
      await migratePg(client);
    } finally {
      client.release();
    }
    let writer: PgWriter | null = null;
    const mirror = new Mirror(() => writer?.touched());
    mirror.load(await readRows(pool, opts.accounts));
    writer = new PgWriter(mirror, pool);
    const durable = writer;
    const mail = new MailStore(mirror.db, durable);
    const secrets = await PgTokenVault.open(pool, box);
    return {
      mail,
      quarantine: new QuarantineStore(mirror.db),
      secrets,
      committed: () => durable.committed(),
      close: async () => {
        await durable.committed().catch(() => undefined);
        mirror.close();
        await pool.end();
      },
    };
  } catch (err) {
    await pool.end();
    throw err;
  }
}
