import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { accountId } from '../../model/account-id';
import { FencedError, storeFailure } from '../store-errors';

/**
 * One owner node per account: a row in `leases` with the owner's name, an expiry on
 * PostgreSQL's clock and an epoch, raised each time the account changes owner. The epoch is
 * the fencing token: every write transaction of the owner checks (and share-locks) its lease
 * row with that epoch, so once another node took the account over, the old owner's writes are
 * refused, and a takeover waits for a write in progress to commit.
 *
 * The owner renews its leases every ttl/3. It counts a lease valid only until ttl after it
 * *sent* its last successful renewal (its own monotonic clock): a node that cannot reach
 * PostgreSQL stops serving the account before any other node may take it. Its lease queries
 * give up after ttl/6 (a cut connection hangs rather than fails), and a renewal that failed
 * gives up every lease with at most ttl/3 left, the time until the next renewal. The node also
 * looks at its leases every ttl/6 on its own clock, whatever its renewals and other queries are
 * waiting for (./ownership.ts): so a node cut off from PostgreSQL stops serving between ttl/6
 * and ttl/3 before its leases run out, and a takeover waits for them to run out on
 * PostgreSQL's clock.
 */

export interface Lease {
  account: string;
  epoch: number;
  /** performance.now() until which no other node can hold it. */
  validUntil: number;
}

/**
 * NOTIFY channel that only wakes nodes up (a lease given up, a node gone, a token record
 * written): the payload names the kind of change, never the change, and a node that missed a
 * notification loses nothing but time, since it looks again every ttl/3 anyway.
 */
export const wakeUpChannel = 'mailbridge_wake';

/** Where other nodes reach this node's listeners (host:port). */
export interface NodeAddresses {
  imap: string | null;
  smtp: string | null;
}

export class LeaseKeeper {
  private readonly held = new Map<string, Lease>();
  private addresses: NodeAddresses = { imap: null, smtp: null };
  /** Whether the last renewal was answered (null before the first), and how fast, in ms. */
  storeUp: boolean | null = null;
  roundTripMs: number | null = null;
  /** When the last renewal was sent, on this node's clock. */
  private lastRenewal = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly pool: pg.Pool,
    readonly node: string,
    readonly ttlMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * A lease query that gives up after ttl/6 (node-postgres's query_timeout, which its types
   * leave out): then the node counts PostgreSQL unreachable.
   */
  private timed(text: string, values: unknown[]): pg.QueryConfig {
    return Object.assign({ text, values }, { query_timeout: this.ttlMs / 6 });
  }

  lease(account: string): Lease | undefined {
    const lease = this.held.get(accountId(account));
    return lease && lease.validUntil > this.now() ? lease : undefined;
  }

  accounts(): string[] {
    return [...this.held.keys()];
  }

  /**
   * Takes the account if no other node holds a live lease on it; its new epoch, or null. A
   * lease of this node's own that it counted as run out (on its clock, which stops counting
   * before PostgreSQL's does) is taken again at once, under a new epoch that fences every
   * write made under the old one.
   */
  async acquire(account: string): Promise<Lease | null> {
    const key = accountId(account);
    const sent = this.now();
    const { rows } = await this.pool.query<{ epoch: number }>(
      `INSERT INTO leases AS l (account, owner, epoch, expires_at)
         VALUES ($1, $2, 1, now() + make_interval(secs => $3))
       ON CONFLICT (account) DO UPDATE SET owner = excluded.owner, epoch = l.epoch + 1, expires_at = excluded.expires_at
         WHERE l.expires_at < now() OR l.owner = excluded.owner
       RETURNING epoch`,
      [key, this.node, this.ttlMs / 1000],
    );
    if (!rows.length) return null;
    const lease = { account: key, epoch: rows[0].epoch, validUntil: sent + this.ttlMs };
    this.held.set(key, lease);
    return lease;
  }

  /**
   * Extends every held lease and this node's presence; returns the accounts whose lease is gone
   * (taken, or about to run out on this node's clock), the nodes alive and, when PostgreSQL did
   * not answer, why (nodes null).
   */
  async renew(): Promise<{ lost: string[]; nodes: string[] | null; error?: Error }> {
    const sent = this.now();
    this.lastRenewal = sent;
    const mine = [...this.held.values()];
    let renewed: Set<string> | null = null;
    let nodes: string[] | null = null;
    let error: Error | undefined;
    try {
      const alive = await this.pool.query<{ node: string }>(
        this.timed(
          `WITH me AS (
           INSERT INTO nodes (node, expires_at, imap, smtp) VALUES ($1, now() + make_interval(secs => $2), $3, $4)
           ON CONFLICT (node) DO UPDATE SET expires_at = excluded.expires_at, imap = excluded.imap, smtp = excluded.smtp
           RETURNING node)
         SELECT node FROM nodes WHERE expires_at > now() AND node <> $1 UNION SELECT node FROM me`,
          [this.node, this.ttlMs / 1000, this.addresses.imap, this.addresses.smtp],
        ),
      );
      nodes = alive.rows.map((r) => r.node).sort();
      const { rows } = await this.pool.query<{ account: string }>(
        this.timed(
          `UPDATE leases l SET expires_at = now() + make_interval(secs => $4)
         FROM unnest($1::text[], $2::bigint[]) AS h(account, epoch)
         WHERE l.account = h.account AND l.epoch = h.epoch AND l.owner = $3
         RETURNING l.account`,
          [mine.map((l) => l.account), mine.map((l) => l.epoch), this.node, this.ttlMs / 1000],
        ),
      );
      renewed = new Set(rows.map((r) => r.account));
      for (const lease of mine) if (renewed.has(lease.account)) lease.validUntil = sent + this.ttlMs;
      this.roundTripMs = this.now() - sent;
    } catch (err) {
      // PostgreSQL out of reach: the leases run out on this node's clock
      error = err as Error;
      nodes = null;
    }
    this.storeUp = !error;
    if (!renewed) return { lost: this.expiring(), nodes, error };
    const lost = mine.filter((l) => !renewed.has(l.account)).map((l) => l.account);
    for (const account of lost) this.held.delete(account);
    return { lost, nodes, error };
  }

  /**
   * Drops and returns the leases that could run out before the next renewal is answered: at
   * most ttl/3 left on this node's clock. A node that renews on time never gets there (a
   * renewal sent every ttl/3 and answered within ttl/6 leaves at least ttl/2).
   */
  expiring(): string[] {
    const margin = this.ttlMs / 3;
    const gone = [...this.held.values()].filter((l) => l.validUntil - this.now() <= margin).map((l) => l.account);
    for (const account of gone) this.held.delete(account);
    return gone;
  }

  /** Whether a renewal is due: none was sent for ttl/3. */
  renewalDue(): boolean {
    return this.now() - this.lastRenewal >= this.ttlMs / 3;
  }

  advertise(addresses: NodeAddresses): void {
    this.addresses = addresses;
  }

  /**
   * When this node name's live heartbeat in PostgreSQL runs out, to the microsecond (each
   * renewal moves it), or null if it has none.
   */
  async heartbeat(): Promise<string | null> {
    const { rows } = await this.pool.query<{ expires: string }>(
      'SELECT expires_at::text AS expires FROM nodes WHERE node = $1 AND expires_at > now()',
      [this.node],
    );
    return rows[0]?.expires ?? null;
  }

  /** The listeners of the node that holds a live lease on the account, if another one does. */
  async ownerOf(account: string): Promise<NodeAddresses | null> {
    const { rows } = await this.pool
      .query<NodeAddresses>(
        this.timed(
          `SELECT n.imap, n.smtp FROM leases l JOIN nodes n ON n.node = l.owner
           WHERE l.account = $1 AND l.owner <> $2 AND l.expires_at > now() AND n.expires_at > now()`,
          [accountId(account), this.node],
        ),
      )
      .catch((err: unknown) => {
        throw storeFailure(err);
      });
    return rows[0] ?? null;
  }

  /** Whether the account has no live lease (nobody serves it). */
  async isFree(account: string): Promise<boolean> {
    const { rows } = await this.pool.query('SELECT 1 FROM leases WHERE account = $1 AND expires_at >= now()', [
      accountId(account),
    ]);
    return rows.length === 0;
  }

  /** This node leaves: its leases end now, other nodes take its accounts at their next look. */
  async leave(): Promise<void> {
    for (const account of this.accounts()) await this.release(account);
    await this.pool.query(
      this.timed(
        `WITH gone AS (DELETE FROM nodes WHERE node = $1 RETURNING node)
         SELECT pg_notify('${wakeUpChannel}', 'node') FROM gone`,
        [this.node],
      ),
    );
  }

  /**
   * Gives the account up at once (a clean stop): another node need not wait for the expiry. Like
   * the renewals, gives up after ttl/6: a node cut off does not wait for a PostgreSQL that hangs.
   */
  async release(account: string): Promise<void> {
    const lease = this.held.get(accountId(account));
    if (!lease) return;
    this.held.delete(lease.account);
    // the other nodes wake up at the commit instead of at their next look
    await this.pool.query(
      this.timed(
        `WITH given AS (
           UPDATE leases SET expires_at = now() - interval '1 second' WHERE account = $1 AND owner = $2 AND epoch = $3
           RETURNING account)
         SELECT pg_notify('${wakeUpChannel}', 'lease') FROM given`,
        [lease.account, this.node, lease.epoch],
      ),
    );
  }

  /**
   * Resolves if this node holds the account's lease, on its clock and in PostgreSQL (one round
   * trip); rejects with FencedError if not, StoreUnavailableError if PostgreSQL did not answer.
   */
  async confirm(account: string): Promise<void> {
    const lease = this.lease(account);
    const refused = () => new FencedError(new Set([accountId(account)]));
    if (!lease) throw refused();
    const { rows } = await this.pool
      .query('SELECT 1 FROM leases WHERE account = $1 AND owner = $2 AND epoch = $3 AND expires_at > now()', [
        lease.account,
        this.node,
        lease.epoch,
      ])
      .catch((err: unknown) => {
        throw storeFailure(err);
      });
    if (!rows.length || !this.lease(account)) throw refused();
  }

  /** Of `leases` (account, epoch), those this node does not hold in PostgreSQL; share-locks the others. */
  static async fence(client: pg.ClientBase, node: string, leases: readonly Lease[]): Promise<Set<string>> {
    const { rows } = await client.query<{ account: string }>(
      `SELECT l.account FROM leases l JOIN unnest($1::text[], $2::bigint[]) AS h(account, epoch)
         ON l.account = h.account AND l.epoch = h.epoch AND l.owner = $3
       FOR SHARE OF l`,
      [leases.map((l) => l.account), leases.map((l) => l.epoch), node],
    );
    const held = new Set(rows.map((r) => r.account));
    return new Set(leases.filter((l) => !held.has(l.account)).map((l) => l.account));
  }
}
