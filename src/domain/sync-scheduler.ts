import { KeyedLock } from '../util/keyed-lock';
import { type SyncTarget, syncFolder } from './folder-sync';
import type { SyncContext, SyncMode } from './sync-context';
import type { SyncCause } from './sync-observer';

/**
 * When an account's folders are synced with the vendor. IMAP answers come from local state;
 * this keeps that state fresh without letting the number of sessions multiply vendor work:
 *  - one sync per folder at a time, and callers asking for what a running sync already does
 *    join it instead of queueing another (ten SELECTs, one incremental sync);
 *  - a folder synced within `freshnessMs` is not synced again on demand (the poller keeps
 *    opened folders fresh on its own interval);
 *  - only a folder never listed completely makes its caller wait for the vendor.
 */

/** How much of the folder a sync mode lists: a complete listing also does an incremental one's job. */
const coverage: Record<SyncMode, number> = { incremental: 1, full: 2, first: 2 };

export interface SyncSchedulerOptions<T extends SyncTarget> {
  ctx: SyncContext;
  freshnessMs: number;
  /** Milliseconds, monotonic enough for freshness (injected by tests). */
  now: () => number;
  /** A failed background sync (nobody waits for it). */
  onBackgroundError: (target: SyncTarget, err: unknown) => void;
  /** Told when a sync really runs (joined calls are not syncs of their own). */
  onSync?: { started(target: T, cause: SyncCause): void; ended(target: T, cause: SyncCause, err: Error | null): void };
}

export class SyncScheduler<T extends SyncTarget> {
  private readonly lock = new KeyedLock();
  private readonly running = new Map<string, { mode: SyncMode; done: Promise<void> }>();
  private readonly syncedAt = new Map<string, number>();
  private readonly active = new Map<string, T>();

  constructor(private readonly opts: SyncSchedulerOptions<T>) {}

  /** Whether the folder was ever listed completely (its local state can answer). */
  isListed(target: T): boolean {
    return this.opts.ctx.store.wasListed(this.opts.ctx.account, target.key);
  }

  /**
   * Syncs now, or joins a running sync that covers `mode`. Without a mode: the first listing
   * for a folder never listed, incremental otherwise.
   */
  sync(target: T, mode?: SyncMode, cause: SyncCause = 'client'): Promise<void> {
    const chosen = mode ?? (this.isListed(target) ? 'incremental' : 'first');
    const current = this.running.get(target.key);
    if (current && coverage[current.mode] >= coverage[chosen]) return current.done;
    const done = this.lock.run(target.key, async () => {
      this.opts.onSync?.started(target, cause);
      try {
        await syncFolder(this.opts.ctx, target, chosen);
      } catch (err) {
        this.opts.onSync?.ended(target, cause, err as Error);
        throw err;
      }
      this.opts.onSync?.ended(target, cause, null);
      if (chosen !== 'incremental') this.opts.ctx.store.markListed(this.opts.ctx.account, target.key);
      this.syncedAt.set(target.key, this.opts.now());
      this.active.set(target.key, target);
    });
    this.running.set(target.key, { mode: chosen, done });
    const forget = () => {
      if (this.running.get(target.key)?.done === done) this.running.delete(target.key);
    };
    done.then(forget, forget);
    return done;
  }

  /**
   * Local state may answer: waits only for a folder never listed; otherwise starts an
   * incremental sync in the background when the last one is older than the freshness window.
   * The folder is kept fresh by the poller from now on.
   */
  async ready(target: T): Promise<void> {
    if (!this.isListed(target)) {
      await this.sync(target);
      return;
    }
    this.active.set(target.key, target);
    this.refreshIfStale(target);
  }

  refreshIfStale(target: T): void {
    const at = this.syncedAt.get(target.key);
    if (at !== undefined && this.opts.now() - at < this.opts.freshnessMs) return;
    this.sync(target, 'incremental').catch((err) => this.opts.onBackgroundError(target, err));
  }

  /** No sync running or queued for any folder. */
  idle(): boolean {
    return this.running.size === 0;
  }

  /** Runs a client's write to the folder between its syncs, not inside one. */
  exclusive<R>(key: string, fn: () => Promise<R>): Promise<R> {
    return this.lock.run(key, fn);
  }

  /** Folders opened since start: the poller keeps these fresh. */
  activeTargets(): T[] {
    return [...this.active.values()];
  }
}
