import fs from 'node:fs';
import path from 'node:path';
import type { Database, Statement } from 'better-sqlite3';
import type { Durability } from './state-store';

/**
 * What waits for the writes made before it to be durable: a publication of changes to the
 * sessions (`afterCommit`) or a client's OK (`committed`, which can also fail). `mark` is
 * SQLite's total_changes() when it came.
 */
interface Waiting {
  mark: number;
  run(): void;
  fail?(err: unknown): void;
}

/**
 * Durability of the SQLite state file without an fsync on the event loop (group commit). The
 * database runs in WAL mode with `synchronous = NORMAL`: a commit appends to the WAL and
 * returns; the WAL is flushed by an fsync on libuv's thread pool, one at a time, each covering
 * every commit made before it began. It begins at the end of the turn of the event loop that
 * asked for it, so the writes of that turn (a command's several transactions) share it.
 *
 * Everything that waits is kept in one queue in call order and released in that order once an
 * fsync covers it, in one go: publications reach the journal in commit order, and a command's
 * OK goes out in the same turn as the publication of what it changed, before any session's
 * listener runs (a session does not hear its own STORE's EXPUNGE before the STORE's answer, as
 * when each commit was synced on the spot). Nothing is published and no client is told OK
 * before the fsync: a crash in between loses nothing anybody was told of.
 */
export class WalDurability implements Durability {
  private readonly changes: Statement<[], number>;
  private readonly wal: string;
  private readonly queue: Waiting[] = [];
  /** total_changes() covered by the last fsync that finished. */
  private durable: number;
  private flushing = false;
  private scheduled = false;

  /** `fsync`: flushes a file to disk; tests decide when it ends. */
  constructor(
    private readonly db: Database,
    private readonly fsync: (file: string) => Promise<void> = fsyncFile,
  ) {
    this.changes = db.prepare<[], number>('SELECT total_changes()').pluck();
    this.wal = `${db.name}-wal`;
    this.durable = this.mark();
    // the WAL's directory entry must be durable too (SQLite syncs it only at a checkpoint)
    syncDirectory(path.dirname(db.name));
  }

  /** Runs `fn` once every commit so far is durable: at once if it is, else after those before it. */
  afterCommit(fn: () => void): void {
    this.wait({ mark: this.mark(), run: fn });
  }

  committed(): Promise<void> {
    return new Promise((resolve, reject) => this.wait({ mark: this.mark(), run: resolve, fail: reject }));
  }

  /** What the connection has written so far; a closed database has nothing left unsynced. */
  private mark(): number {
    return this.db.open ? (this.changes.get() ?? 0) : this.durable;
  }

  private wait(w: Waiting): void {
    // marks grow in call order: with nothing queued, this one is as durable as the last
    if (!this.queue.length && w.mark <= this.durable) {
      w.run();
      return;
    }
    this.queue.push(w);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    // closing the last connection checkpoints the WAL into the database file and syncs it
    if (!this.db.open) {
      this.release(Number.POSITIVE_INFINITY);
      return;
    }
    this.flushing = true;
    const target = this.mark();
    this.fsync(this.wal).then(
      () => {
        this.flushing = false;
        this.release(target);
      },
      (err: unknown) => {
        this.flushing = false;
        if (!this.db.open) this.release(Number.POSITIVE_INFINITY);
        else this.refuse(err);
      },
    );
  }

  /** Runs, in order, what `upTo` covers; asks for the next fsync if more waits. */
  private release(upTo: number): void {
    this.durable = Math.max(this.durable, upTo);
    while (this.queue.length && this.queue[0].mark <= this.durable) this.queue.shift()?.run();
    if (this.queue.length) this.schedule();
  }

  /**
   * The WAL could not be flushed: every OK waiting fails (the clients are told NO), while the
   * publications stay queued, in order, for the next fsync that succeeds (the next command
   * asks for one): no session hears of a change before it is durable, none misses one.
   */
  private refuse(err: unknown): void {
    const failed = this.queue.filter((w) => w.fail);
    this.queue.splice(0, this.queue.length, ...this.queue.filter((w) => !w.fail));
    for (const w of failed) w.fail?.(err);
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

function syncDirectory(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
