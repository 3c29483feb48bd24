import fs from 'node:fs';
import type { Database, Statement } from 'better-sqlite3';
import type { Durability } from './state-store';

interface Waiter {
  mark: number;
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * Durability of the SQLite state file without an fsync on the event loop. The database runs
 * in WAL mode with `synchronous = NORMAL`: a commit appends to the WAL and returns, and a
 * client is told OK (`committed`) only after an fsync of the WAL, run on libuv's thread pool.
 * With `synchronous = FULL` every commit waited for its own fsync on the main thread, and every
 * session of the daemon waited with it. One fsync covers every commit made before it started;
 * commits made while it runs share the next one (group commit). A write is marked by SQLite's
 * `total_changes()`, so a command that changed nothing waits for nothing.
 */
export class WalDurability implements Durability {
  private readonly changes: Statement<[], number>;
  private readonly wal: string;
  /** total_changes() covered by the last fsync that finished. */
  private synced: number;
  private running = false;
  private waiters: Waiter[] = [];

  /** `fsync`: flushes a file to disk (tests hold it to see who waits). */
  constructor(
    private readonly db: Database,
    private readonly fsync: (file: string) => Promise<void> = fsyncFile,
  ) {
    this.changes = db.prepare<[], number>('SELECT total_changes()').pluck();
    this.wal = `${db.name}-wal`;
    this.synced = this.changes.get() ?? 0;
  }

  committed(): Promise<void> {
    if (!this.db.open) return Promise.resolve();
    const mark = this.changes.get() ?? 0;
    if (mark <= this.synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ mark, resolve, reject });
      this.pump();
    });
  }

  /** Callbacks run in call order: waiters settle in the order they came, each fsync's at once. */
  afterCommit(fn: () => void): void {
    void this.committed().then(fn, () => undefined);
  }

  private pump(): void {
    if (this.running || !this.waiters.length) return;
    // closing the last connection checkpoints the WAL into the database file and syncs it
    if (!this.db.open) {
      this.settle(this.waiters);
      return;
    }
    this.running = true;
    const target = this.changes.get() ?? 0;
    this.fsync(this.wal)
      .then(
        () => {
          this.synced = Math.max(this.synced, target);
          this.settle(this.waiters.filter((w) => w.mark <= target));
        },
        (err: unknown) => this.settle(this.waiters, this.db.open ? err : undefined),
      )
      .finally(() => {
        this.running = false;
        this.pump();
      });
  }

  /** Resolves these waiters, or rejects them with `err`, and forgets them. */
  private settle(done: Waiter[], err?: unknown): void {
    this.waiters = this.waiters.filter((w) => !done.includes(w));
    for (const w of done) {
      if (err === undefined) w.resolve();
      else w.reject(err);
    }
  }
}

async function fsyncFile(file: string): Promise<void> {
  const handle = await fs.promises.open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
