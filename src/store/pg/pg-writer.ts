import type pg from 'pg';
import type { Durability } from '../state-store';
import { FencedError, storeFailure } from '../store-errors';
import type { ChangeBatch, Mirror } from './mirror';
import type { ReplicatedTable } from './replicated-tables';
import { accountId } from '../../model/account-id';

/**
 * Sends the mirror's changes to PostgreSQL, one transaction per batch, one batch after the
 * other: a batch is cut when a caller needs to know its writes are durable (afterCommit,
 * committed) and otherwise at the end of the current tick. Each batch holds rows as they are,
 * not operations, so a batch that failed is sent again before the next one and nothing is
 * applied twice.
 */

/** A PostgreSQL upsert of many rows: one array parameter per column, unnest() makes the rows. */
function upsert(table: ReplicatedTable): string {
  const names = table.columns.map(([c]) => c);
  const params = table.columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ');
  const updates = names.filter((c) => !table.key.includes(c)).map((c) => `${c} = excluded.${c}`);
  return `INSERT INTO ${table.name} (${names.join(', ')}) SELECT * FROM unnest(${params})
    ON CONFLICT (${table.key.join(', ')}) DO ${updates.length ? `UPDATE SET ${updates.join(', ')}` : 'NOTHING'}`;
}

function remove(table: ReplicatedTable): string {
  const types = new Map(table.columns);
  const params = table.key.map((c, i) => `$${i + 1}::${types.get(c)}[]`).join(', ');
  return `DELETE FROM ${table.name} WHERE (${table.key.join(', ')}) IN (SELECT * FROM unnest(${params}))`;
}

/** Rows to column arrays, the shape unnest() takes. */
function columnsOf(rows: unknown[][], width: number): unknown[][] {
  const columns: unknown[][] = Array.from({ length: width }, () => []);
  for (const row of rows) for (let i = 0; i < width; i++) columns[i].push(row[i]);
  return columns;
}

/**
 * Runs inside each write transaction before its rows are written: the accounts (lower case)
 * whose rows must be refused. It may lock what keeps the others valid until the commit.
 */
export type Fence = (client: pg.ClientBase, accounts: readonly string[]) => Promise<Set<string>>;

/** The account of each row and each gone key of a batch, lower case. */
function accountsOf(batch: ChangeBatch): Set<string> {
  const accounts = new Set<string>();
  for (const { table, rows, gone } of batch) {
    const inRow = table.columns.findIndex(([c]) => c === 'account');
    const inKey = table.key.indexOf('account');
    for (const r of rows) accounts.add(accountId(String(r[inRow])));
    if (inKey >= 0) for (const k of gone) accounts.add(accountId(String(k[inKey])));
  }
  return accounts;
}

function without(batch: ChangeBatch, refused: ReadonlySet<string>): ChangeBatch {
  return batch.map(({ table, rows, gone }) => {
    const inRow = table.columns.findIndex(([c]) => c === 'account');
    const inKey = table.key.indexOf('account');
    return {
      table,
      rows: rows.filter((r) => !refused.has(accountId(String(r[inRow])))),
      gone: inKey < 0 ? gone : gone.filter((k) => !refused.has(accountId(String(k[inKey])))),
    };
  });
}

export class PgWriter implements Durability {
  private tail: Promise<void> = Promise.resolve();
  private scheduled = false;
  /** Batches a failed transaction did not store, sent again first (and those of the send under way). */
  private unsent: ChangeBatch[] = [];
  private sending = false;
  /** Batches cut so far, and how many of them are stored (in order). */
  private cutCount = 0;
  private storedCount = 0;
  /** afterCommit callbacks, in call order, with the batch count they wait for (null: the next cut's). */
  private readonly waiting: Array<{ upTo: number | null; fn: () => void }> = [];

  constructor(
    private readonly mirror: Mirror,
    private readonly pool: pg.Pool,
    private readonly fence: Fence | null,
    private readonly onFenced: (accounts: ReadonlySet<string>) => void = () => undefined,
  ) {}

  /** The mirror was written: its changes go out at the end of this tick at the latest. */
  touched(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.cut().catch(() => undefined);
    });
  }

  /**
   * Runs `fn` once the writes made so far are stored, at once if they are. Writes of this tick
   * are cut into a batch at its end (touched), not here: a command's writes of one tick (a
   * release's EXPUNGE, then the removal of the held bytes) share one transaction, so its OK
   * comes on the turn the change is published, before any session's listener hears of it. A
   * batch that failed keeps its callbacks waiting until it is stored on a later attempt: no
   * session hears of a change before it is stored, and none misses one that was.
   */
  afterCommit(fn: () => void): void {
    // nothing written since the end-of-tick cut: every write is in a batch cut so far
    this.waiting.push({ upTo: this.scheduled ? null : this.cutCount, fn });
    this.runStored();
  }

  private runStored(): void {
    while (this.waiting.length && (this.waiting[0].upTo ?? Number.POSITIVE_INFINITY) <= this.storedCount)
      this.waiting.shift()?.fn();
  }

  /**
   * Resolves once the writes made so far are stored. With `account`, a refusal of other
   * accounts' rows does not concern the caller: its rows were stored in the same transaction.
   */
  committed(account?: string): Promise<void> {
    const key = account === undefined ? undefined : accountId(account);
    return this.cut().catch((err: unknown) => {
      if (key && err instanceof FencedError && !err.accounts.has(key)) return;
      throw err;
    });
  }

  /** Drops what a failed transaction left unsent of the account: its lease is gone, its next owner reads the vendor. */
  forget(account: string): void {
    const gone = new Set([accountId(account)]);
    this.unsent = this.unsent.map((b) => without(b, gone));
  }

  /**
   * Sends what changed since the last cut; with nothing new, sends again what a failure left
   * unsent; with nothing at all, waits only for a send under way (a settled failure of an
   * earlier send is not this caller's).
   */
  private cut(): Promise<void> {
    const batch = this.mirror.takeChanges();
    if (batch.length) {
      const count = ++this.cutCount;
      this.tail = this.tail.catch(() => undefined).then(() => this.send([batch], count));
    } else if (this.unsent.length && !this.sending) {
      const count = this.cutCount;
      this.tail = this.tail.catch(() => undefined).then(() => this.send([], count));
    }
    for (const w of this.waiting) w.upTo ??= this.cutCount;
    this.runStored();
    if (!batch.length && !this.sending && !this.unsent.length && this.storedCount === this.cutCount)
      return Promise.resolve();
    return this.tail;
  }

  private async send(batches: ChangeBatch[], count: number): Promise<void> {
    this.sending = true;
    try {
      await this.transact(batches, count);
    } finally {
      this.sending = false;
    }
  }

  /** One transaction: what a failure left unsent, then `batches`; `count` batches are stored after it. */
  private async transact(batches: ChangeBatch[], count: number): Promise<void> {
    let pending = [...this.unsent, ...batches];
    this.unsent = pending;
    const client = await this.pool.connect().catch((err: unknown) => {
      throw storeFailure(err);
    });
    // a connection lost mid-transaction reports here as well as to the query: the query's
    // rejection is the one acted on
    const lost = () => undefined;
    client.on('error', lost);
    let refused = new Set<string>();
    let failure: Error | undefined;
    try {
      await client.query('BEGIN');
      if (this.fence) {
        refused = await this.fence(client, [...new Set(pending.flatMap((b) => [...accountsOf(b)]))]);
        if (refused.size) pending = pending.map((b) => without(b, refused));
      }
      for (const b of pending) await write(client, b);
      await client.query('COMMIT');
      this.unsent = [];
      this.storedCount = count;
    } catch (err) {
      failure = err as Error;
      await client.query('ROLLBACK').catch(() => undefined);
      throw storeFailure(err);
    } finally {
      client.off('error', lost);
      // a client that failed is not given out again
      client.release(failure);
    }
    this.runStored();
    if (refused.size) {
      this.onFenced(refused);
      throw new FencedError(refused);
    }
  }
}

async function write(client: pg.ClientBase, batch: ChangeBatch): Promise<void> {
  for (const { table, rows, gone } of batch) {
    if (gone.length) await client.query(remove(table), columnsOf(gone, table.key.length));
    if (rows.length) await client.query(upsert(table), columnsOf(rows, table.columns.length));
  }
}
