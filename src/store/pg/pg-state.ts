import pg from 'pg';
import { registerSecret } from '../../log';
import { collectAfter } from '../../util/memory';
import { performance } from 'node:perf_hooks';
import { MailStore } from '../mail-store';
import { QuarantineStore } from '../quarantine';
import type { StateStore } from '../state-store';
import { soleOwnership } from '../sole-ownership';
import { LeaseKeeper } from './leases';
import { Mirror } from './mirror';
import { type NodeObserver, PgOwnership } from './ownership';
import { PgTokenVault } from './pg-token-vault';
import { PgWriter } from './pg-writer';
import { type ReplicatedTable, replicatedTables } from './replicated-tables';
import { migratePg } from './schema';
import { secretBox } from './secret-box';
import { accountId } from '../../model/account-id';
import { FencedError } from '../store-errors';

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
  /**
   * A daemon node: it mirrors and writes only the accounts whose lease it holds. Without it,
   * every account is loaded and writes are not fenced (the CLI, the SQLite migration).
   */
  node?: {
    name: string;
    leaseMs: number;
    onError(err: Error): void;
    /** The node's monotonic clock, in ms (performance.now by default): the leases run out on it. */
    now?: () => number;
    observer?: NodeObserver;
    /** How the node waits before it looks whether its name is taken (a timer by default). */
    wait?: (ms: number) => Promise<void>;
  };
}

/** bigint columns (UIDs, MODSEQs, dates in ms) as numbers: all stay below 2^53. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * `leaseMs`, for a node: a connection or query that hangs (PostgreSQL cut off) gives up in time
 * for the node to stop serving before its leases run out (./leases.ts).
 */
export function pgPool(connection: string | pg.PoolConfig, leaseMs?: number): pg.Pool {
  if (typeof connection === 'string') registerSecret(connection);
  const config = typeof connection === 'string' ? { connectionString: connection } : connection;
  const timeouts = leaseMs ? { connectionTimeoutMillis: leaseMs / 6, query_timeout: leaseMs } : {};
  const pool = new pg.Pool({ ...config, ...timeouts, types, max: 8 });
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
      values: accounts ? [accounts.map(accountId)] : [],
      rowMode: 'array',
    });
    rows.set(table, found as unknown[][]);
  }
  return rows;
}

export async function openPgState(opts: PgStateOptions): Promise<StateStore> {
  const box = secretBox(opts.secretKey);
  const pool = pgPool(opts.connection, opts.node?.leaseMs);
  try {
    await migratePg(pool);
    let writer: PgWriter | null = null;
    const mirror = new Mirror(() => writer?.touched());
    const secrets = await PgTokenVault.open(pool, box);
    const now = opts.node?.now ?? (() => performance.now());
    const keeper = opts.node ? new LeaseKeeper(pool, opts.node.name, opts.node.leaseMs, now) : null;
    let ownership: PgOwnership | null = null;
    writer = new PgWriter(
      mirror,
      pool,
      keeper &&
        ((client, accounts) =>
          // an account without a lease valid here is refused: epoch 0 is never given
          LeaseKeeper.fence(
            client,
            keeper.node,
            accounts.map((a) => keeper.lease(a) ?? { account: a, epoch: 0, validUntil: 0 }),
          )),
      (accounts) => ownership?.fenced(accounts),
    );
    const durable = writer;
    const mail = new MailStore(mirror.db, durable);
    if (keeper && opts.node) {
      /** Replaces the mirror's rows of `mailbox` with PostgreSQL's; the most rows of one table. */
      const copyIn = async (mailbox: string) => {
        const rows = await readRows(pool, [mailbox]);
        mirror.unload(mailbox);
        mirror.load(rows);
        return Math.max(...[...rows.values()].map((r) => r.length));
      };
      const loader = {
        load: async (mailbox: string) => {
          // the rows read are garbage once copied in, and collected as such
          collectAfter(await copyIn(mailbox));
          mail.forgetAccount(mailbox);
          // the last owner may have rotated its tokens
          await secrets.reread();
        },
        catchUp: async () => {
          await secrets.reread();
          // what a failed transaction left unsent goes again (PostgreSQL back after an outage)
          await durable.committed().catch(() => undefined);
        },
        unload: async (mailbox: string, flush: boolean) => {
          if (flush) await durable.committed().catch(() => undefined);
          // what is still unsent (its lease ran out during an outage) can no longer be stored
          durable.forget(mailbox);
          mirror.unload(mailbox);
          mail.forgetAccount(mailbox);
        },
      };
      ownership = new PgOwnership(
        keeper,
        loader,
        now,
        opts.node.onError,
        pool.options,
        opts.node.observer,
        opts.node.wait,
      );
    } else mirror.load(await readRows(pool, undefined));
    return {
      mail,
      ownership: ownership ?? soleOwnership(),
      node: ownership,
      quarantine: new QuarantineStore(mirror.db),
      secrets,
      committed: (account) => durable.committed(account),
      // what failed to be stored goes first: a store that cannot take it cannot take more
      writable: async (mailbox) => {
        await durable.committed(mailbox);
        await keeper?.confirm(mailbox);
      },
      assertHeld: (mailbox) => {
        if (keeper && !keeper.lease(mailbox)) throw new FencedError(new Set([accountId(mailbox)]));
      },
      close: async () => {
        await ownership?.halt();
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
