import { createHash } from 'node:crypto';
import type { LeaseChange, NodeHealth, Ownership, OwnershipEvents } from '../state-store';
import type pg from 'pg';
import type { LeaseKeeper, NodeAddresses } from './leases';
import { WakeUps } from './wake-ups';
import { accountId } from '../../model/account-id';
import { ConfigError } from '../../config';

/**
 * Spreads accounts over the nodes alive and keeps each on one: rendezvous hashing names the
 * preferred node of an account among those alive, and that node takes its lease as soon as it
 * is free. A node gives up (cleanly, at once) accounts that prefer another node that joined;
 * an account whose preferred node does not want it is taken by any node once it has stayed
 * free for a whole lease time. Every ttl/3 a node renews its leases and looks again, so a dead
 * owner's accounts move within ttl + ttl/3 (plus loading their state).
 */

export interface AccountLoader {
  /** Reads the account's state from PostgreSQL into this node's mirror. */
  load(mailbox: string): Promise<void>;
  /**
   * Drops it from the mirror; `flush`: sends its last writes first (not when its lease is lost:
   * they would be refused, and waiting for a PostgreSQL that hangs would keep the node serving).
   */
  unload(mailbox: string, flush: boolean): Promise<void>;
  /**
   * At every look: reads again what any node may change (token records, bridge passwords) and
   * sends again what a transaction failed to store (PostgreSQL back after an outage).
   */
  catchUp(): Promise<void>;
}

/** What a node reports of its leases and its store (the log): each change once. */
export interface NodeObserver {
  lease(mailbox: string, change: LeaseChange): void;
  store(up: boolean, error?: Error): void;
}

function weight(node: string, account: string): bigint {
  return createHash('sha256').update(`${node}\u0000${account}`).digest().readBigUInt64BE(0);
}

export function preferredNode(nodes: readonly string[], account: string): string | undefined {
  let best: string | undefined;
  let bestWeight = -1n;
  for (const node of nodes) {
    const w = weight(node, account);
    if (w > bestWeight) [best, bestWeight] = [node, w];
  }
  return best;
}

export class PgOwnership implements Ownership, NodeHealth {
  private wanted: () => string[] = () => [];
  private events: OwnershipEvents | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Keeps the leases on this node's clock, apart from the looks (upkeep). */
  private fencing: NodeJS.Timeout | null = null;
  /** The upkeep's renewal under way, if any. */
  private renewing: Promise<void> | null = null;
  private running: Promise<void> = Promise.resolve();
  /** A look is queued and has not started: another request joins it. */
  private queued = false;
  private wakeUps: WakeUps | null = null;
  /** Accounts seen free while another node was preferred: when, on the keeper's clock. */
  private readonly freeSince = new Map<string, number>();
  private readonly names = new Map<string, string>();
  private readonly changes = new Map<LeaseChange, number>();
  /** The store answered at the start (the schema was read): only a change is reported. */
  private storeAnswered = true;

  constructor(
    private readonly keeper: LeaseKeeper,
    private readonly loader: AccountLoader,
    private readonly now: () => number,
    private readonly onError: (err: Error) => void,
    private readonly listen: pg.ClientConfig | null = null,
    private readonly observer: NodeObserver | null = null,
    private readonly wait: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  storeUp(): boolean {
    return this.keeper.storeUp !== false;
  }

  storeRoundTripSeconds(): number | null {
    return this.keeper.roundTripMs === null ? null : this.keeper.roundTripMs / 1000;
  }

  leasesHeld(): number {
    return this.names.size;
  }

  leaseChanges(): ReadonlyMap<LeaseChange, number> {
    return this.changes;
  }

  private changed(mailbox: string, change: LeaseChange): void {
    this.changes.set(change, (this.changes.get(change) ?? 0) + 1);
    this.observer?.lease(mailbox, change);
  }

  advertise(addresses: NodeAddresses): void {
    this.keeper.advertise(addresses);
  }

  ownerOf(mailbox: string): Promise<NodeAddresses | null> {
    return this.keeper.ownerOf(mailbox);
  }

  async start(wanted: () => string[], events: OwnershipEvents): Promise<void> {
    await this.refuseDuplicate();
    this.wanted = wanted;
    this.events = events;
    this.timer = setInterval(() => void this.review(), this.keeper.ttlMs / 3);
    // not a look: a look can wait (loading mailboxes, a query on a cut connection) past the leases
    this.fencing = setInterval(
      () => void this.upkeep().catch((err: Error) => this.onError(err)),
      this.keeper.ttlMs / 6,
    );
    if (this.listen) {
      this.wakeUps = new WakeUps(this.listen, () => void this.review(), this.keeper.ttlMs / 3);
      // LISTENing before the first look: a wake-up sent after that look cannot be missed
      await this.wakeUps.start();
    }
    return this.review();
  }

  /** One look at a time: asked for during another, it runs after it (once, however often asked). */
  review(): Promise<void> {
    if (this.queued) return this.running;
    this.queued = true;
    this.running = this.running
      .then(() => {
        this.queued = false;
        return this.look();
      })
      .catch((err: Error) => this.onError(err));
    return this.running;
  }

  /**
   * Every ttl/6, whatever a look is waiting for: stops serving, on this node's clock, what could
   * run out before PostgreSQL confirms it, and renews the leases when no renewal was sent for
   * ttl/3 (a look under way holds up the next one). A renewal that hangs does not hold up the
   * next upkeep's stop.
   */
  upkeep(): Promise<void> {
    this.fenced(this.keeper.expiring());
    if (this.renewing || !this.keeper.renewalDue()) return Promise.resolve();
    this.renewing = this.keeper
      .renew()
      .then(({ lost, nodes, error }) => {
        this.storeSeen(nodes !== null, error);
        this.fenced(lost);
      })
      .finally(() => {
        this.renewing = null;
      });
    return this.renewing;
  }

  /** Reports the store lost or back, once per change. */
  private storeSeen(answered: boolean, error?: Error): void {
    if (answered === this.storeAnswered) return;
    this.storeAnswered = answered;
    this.observer?.store(answered, error);
  }

  /**
   * Writes of these accounts were refused (another node has them), or their leases could run out
   * before PostgreSQL confirms them: stops serving them now, each on its own.
   */
  fenced(accounts: Iterable<string>): void {
    for (const account of accounts) void this.lose(account, 'lost').catch((err: Error) => this.onError(err));
  }

  /**
   * Stops serving and leaves. PostgreSQL out of reach, the node stops all the same: what it
   * could not give up runs out (the failure goes to onError).
   */
  async stop(): Promise<void> {
    await this.halt();
    const report = (err: Error) => this.onError(err);
    for (const account of this.keeper.accounts()) await this.lose(account, 'given up').catch(report);
    this.events = null;
    await this.keeper.leave().catch(report);
  }

  /** No more looks, timed or woken (the store is closing); the leases are left to run out. */
  async halt(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.fencing) clearInterval(this.fencing);
    this.timer = this.fencing = null;
    await this.wakeUps?.stop();
    this.wakeUps = null;
    await this.running;
    // a renewal finishing after the node left would announce it alive again
    await this.renewing?.catch(() => undefined);
  }

  private async look(): Promise<void> {
    if (!this.events) return;
    const { lost, nodes, error } = await this.keeper.renew();
    this.storeSeen(nodes !== null, error);
    for (const account of lost) await this.lose(account, 'lost');
    if (!nodes) return;
    await this.loader.catchUp();
    const wanted = new Map<string, string>(this.wanted().map((m) => [accountId(m), m]));
    for (const account of this.keeper.accounts()) {
      if (!wanted.has(account)) await this.lose(account, 'given up');
      else if (preferredNode(nodes, account) !== this.keeper.node) await this.lose(account, 'handed over');
    }
    for (const [account, mailbox] of wanted) {
      if (this.keeper.lease(account)) continue;
      if (preferredNode(nodes, account) !== this.keeper.node && !(await this.freeLongEnough(account))) continue;
      if (!(await this.keeper.acquire(account))) continue;
      this.freeSince.delete(account);
      try {
        await this.loader.load(mailbox);
      } catch (err) {
        await this.keeper.release(account);
        throw err;
      }
      this.names.set(account, mailbox);
      this.events?.gained(mailbox);
      this.changed(mailbox, 'gained');
    }
  }

  /**
   * Refuses to start under a name another running node uses: its heartbeat is live and moves
   * on within half a lease (it renews every ttl/3, a renewal waits up to ttl/6). A live one that
   * stays put is a crashed predecessor's, running out: this node takes its place.
   */
  private async refuseDuplicate(): Promise<void> {
    const seen = await this.keeper.heartbeat();
    if (seen === null) return;
    await this.wait(this.keeper.ttlMs / 2);
    const now = await this.keeper.heartbeat();
    if (now !== null && now !== seen)
      throw new ConfigError(
        `state.node "${this.keeper.node}" is the name of another node that is running (its heartbeat in PostgreSQL moves on); give every node its own name`,
      );
  }

  private async freeLongEnough(account: string): Promise<boolean> {
    if (!(await this.keeper.isFree(account))) {
      this.freeSince.delete(account);
      return false;
    }
    const since = this.freeSince.get(account) ?? this.now();
    this.freeSince.set(account, since);
    return this.now() - since >= this.keeper.ttlMs;
  }

  /** Stops serving the account; unless its lease is lost, gives the lease up at once (it is still ours). */
  private async lose(account: string, change: Exclude<LeaseChange, 'gained'>): Promise<void> {
    const mailbox = this.names.get(account);
    if (!mailbox) return;
    this.names.delete(account);
    this.changed(mailbox, change);
    await this.events?.lost(mailbox, change);
    await this.loader.unload(mailbox, change !== 'lost');
    if (change !== 'lost') await this.keeper.release(account);
  }
}
