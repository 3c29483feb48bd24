import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { MailMessage } from '../domain/message';
import type { DescribeRequest, DescribeResponse, DescribedRow } from './describe-worker';
import { describeRecord, type MetadataRecord } from './metadata-record';
import { type Clock, unrefClock } from '../util/clock';
import { workerScript } from '../util/worker-script';

/**
 * Describing a message (its tree, ENVELOPE/BODYSTRUCTURE, the row's wire text and JSON) is
 * pure CPU, a tenth of a millisecond or more each: a full sync of a large folder spends
 * seconds on it. Done on the main thread, that time also delays every list_threads page
 * behind it (the next page needs this one's cursor). So a sync describes in worker threads:
 * the main thread keeps listing, fetching and serving IMAP while the workers describe what
 * already arrived.
 *
 * Workers start on first use, or when a sync says a batch is coming (prepare), and end after a
 * while without work (they hold tens of MB each). Small batches (incremental polls) are
 * described inline while no worker runs: starting one would cost more.
 * The output is the same bytes as describeRecord on the main thread.
 */

export interface DescribePoolOptions {
  /** Most workers at once; 0 describes everything inline. */
  workers: number;
  /** Batches smaller than this are described inline. */
  inlineBelow: number;
  /** Messages per worker task: a batch is spread over the workers in chunks of this size. */
  chunk: number;
  /** Without workers, the most messages described between two turns of the event loop. */
  slice: number;
  /**
   * Without workers, the most time (on `clock`) a slice describes before the event loop's
   * turn: a vendor answer arriving meanwhile waits for that at most before the next list
   * request goes. A count alone let a slice of messages not yet optimized by V8 run 10 ms.
   */
  sliceMs: number;
  /**
   * Tasks handed to a worker before it answered the first: the worker keeps describing while
   * the main thread is busy (parsing an answer, writing SQLite) instead of waiting for it to
   * hand out the next chunk.
   */
  tasksPerWorker: number;
  /** An idle worker ends after this long (unless a hold keeps it, see hold()). */
  idleMs: number;
  /**
   * V8 young generation of a worker. Describing allocates short-lived garbage only, and the
   * default (tens of MB per thread) would stay resident while the worker lives. Each young
   * collection copies the chunks waiting in the worker, so a smaller one costs CPU: 8 MB
   * collected twice as often as 16 (565 against 282 times over 24,000 messages), and 32 MB
   * raised a 100,000-message sync's peak RSS to 281 MB where 16 MB peaked at 243 MB.
   */
  youngGenerationMb: number;
  /** Scheduling priority of worker threads (Linux nice value, 0-19): below the main thread's. */
  nice: number;
  /** Times the idle end (tests move it). */
  clock: Clock;
}

/**
 * One worker per core besides the main thread's (at least one, at most 4): the main thread
 * keeps a core busy during a sync too, and every further worker holds its own heap (a
 * 100,000-message sync on 2 cores peaked at 445 MB RSS with 2 workers, 318 MB with 1).
 * MAILBRIDGE_DESCRIBE_WORKERS overrides the count (0: no workers).
 */
function defaultWorkers(): number {
  const env = process.env.MAILBRIDGE_DESCRIBE_WORKERS;
  if (env !== undefined && /^\d+$/.test(env.trim())) return Number(env.trim());
  return Math.max(1, Math.min(4, os.availableParallelism() - 1));
}

/**
 * Describing on the main thread (no workers: a one-core container) in slices, with a turn of
 * the event loop before each: the caller's own work goes first (a sync asks for the next list
 * page before its batch is described), and a vendor answer arriving meanwhile is read at once
 * instead of waiting behind the whole batch, so describing fills the waits for the vendor
 * rather than adding to them.
 */
async function describeInSlices(
  messages: readonly MailMessage[],
  { slice, sliceMs, clock }: Pick<DescribePoolOptions, 'slice' | 'sliceMs' | 'clock'>,
): Promise<MetadataRecord[]> {
  const records: MetadataRecord[] = [];
  while (records.length < messages.length) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    const end = Math.min(messages.length, records.length + slice);
    const until = clock.now() + sliceMs;
    do records.push(describeRecord(messages[records.length]));
    while (records.length < end && clock.now() < until);
  }
  return records;
}

/** The worker's rows completed with the messages' JSON they were described from. */
function withMessages(rows: DescribedRow[], messages: string[]): MetadataRecord[] {
  return rows.map((row, i) => ({ ...row, message: messages[i] }));
}

interface Task {
  /** JSON of each message: what the worker reads them from, and the rows' `message`. */
  messages: string[];
  resolve(records: MetadataRecord[]): void;
  reject(err: Error): void;
}

interface PoolWorker {
  worker: Worker;
  /** Handed out and not answered yet, by request id (a worker answers in order). */
  tasks: Map<number, Task>;
  /** Cancels the idle end. */
  idleTimer: (() => void) | null;
}

export class DescribePool {
  private readonly opts: DescribePoolOptions;
  private readonly workers = new Set<PoolWorker>();
  private readonly queue: Task[] = [];
  private nextId = 1;
  private holds = 0;

  constructor(opts: Partial<DescribePoolOptions> = {}) {
    this.opts = {
      workers: defaultWorkers(),
      inlineBelow: 50,
      chunk: 100,
      slice: 20,
      sliceMs: 2,
      tasksPerWorker: 3,
      idleMs: 1000,
      youngGenerationMb: 16,
      nice: 10,
      clock: unrefClock,
      ...opts,
    };
  }

  /** Records of `messages`, in order. */
  async describe(messages: readonly MailMessage[]): Promise<MetadataRecord[]> {
    // a small batch goes to a worker only when one runs (a sync's): its code is compiled there
    if (messages.length < this.opts.inlineBelow && !this.workers.size) return messages.map(describeRecord);
    if (this.opts.workers <= 0) return describeInSlices(messages, this.opts);
    const chunks: string[][] = [];
    const size = Math.max(1, Math.min(this.opts.chunk, Math.ceil(messages.length / this.opts.workers)));
    for (let i = 0; i < messages.length; i += size)
      chunks.push(messages.slice(i, i + size).map((m) => JSON.stringify(m)));
    const parts = await Promise.all(
      chunks.map(
        (c) => new Promise<MetadataRecord[]>((resolve, reject) => this.enqueue({ messages: c, resolve, reject })),
      ),
    );
    return parts.flat();
  }

  /**
   * A batch of `count` messages is on its way (a sync asked the vendor for them): when it will
   * go to a worker and none runs, one starts now. A worker takes about 200 ms to load its
   * modules (2026-11-27, the 2-core development machine); started by the first batch's arrival,
   * it kept that batch waiting, and a sync's listing stops while too many batches wait for
   * their description (folder-sync.ts).
   */
  prepare(count: number): void {
    if (count < this.opts.inlineBelow || this.opts.workers <= 0 || this.workers.size) return;
    const w = this.spawn();
    w.worker.unref();
    if (!this.holds) w.idleTimer = this.opts.clock.after(this.opts.idleMs, () => this.end(w));
  }

  /**
   * Keeps idle workers while a long job (a folder sync) runs, however long it waits between
   * batches; when the last hold ends, idle workers end at once instead of after `idleMs`, so a
   * finished sync leaves no worker heaps behind.
   */
  hold(): () => void {
    this.holds++;
    for (const w of this.workers) {
      w.idleTimer?.();
      w.idleTimer = null;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.holds) return;
      for (const w of [...this.workers]) if (!w.tasks.size) this.end(w);
    };
  }

  /** Workers alive now. */
  get running(): number {
    return this.workers.size;
  }

  /** Ends every worker (pending tasks fail). */
  async close(): Promise<void> {
    const all = [...this.workers];
    this.workers.clear();
    for (const t of this.queue.splice(0)) t.reject(new Error('describe pool closed'));
    await Promise.all(all.map((w) => this.retire(w, new Error('describe pool closed'))));
  }

  private enqueue(task: Task): void {
    this.queue.push(task);
    this.pump();
  }

  private pump(): void {
    while (this.queue.length) {
      // the least busy worker, or a new one while the pool may grow
      let w = [...this.workers].sort((a, b) => a.tasks.size - b.tasks.size)[0];
      if ((!w || w.tasks.size > 0) && this.workers.size < this.opts.workers) w = this.spawn();
      if (w.tasks.size >= this.opts.tasksPerWorker) return;
      this.run(w, this.queue.shift()!);
    }
  }

  private spawn(): PoolWorker {
    const { file, options } = workerScript(__filename, 'describe-worker');
    const w: PoolWorker = {
      worker: new Worker(file, {
        ...options,
        workerData: { nice: this.opts.nice },
        resourceLimits: { maxYoungGenerationSizeMb: this.opts.youngGenerationMb },
      }),
      tasks: new Map(),
      idleTimer: null,
    };
    w.worker.on('message', (res: DescribeResponse) => this.settle(w, res));
    w.worker.on('error', (err) => this.fail(w, err));
    w.worker.on('exit', (code) => this.fail(w, new Error(`describe worker exited with code ${code}`)));
    this.workers.add(w);
    return w;
  }

  private run(w: PoolWorker, task: Task): void {
    w.idleTimer?.();
    w.idleTimer = null;
    const req: DescribeRequest = { id: this.nextId++, messages: task.messages };
    w.tasks.set(req.id, task);
    w.worker.ref();
    w.worker.postMessage(req);
  }

  private settle(w: PoolWorker, res: DescribeResponse): void {
    const task = w.tasks.get(res.id);
    w.tasks.delete(res.id);
    if (!w.tasks.size) {
      w.worker.unref();
      if (!this.holds) {
        w.idleTimer = this.opts.clock.after(this.opts.idleMs, () => this.end(w));
      }
    }
    if (task) {
      if (res.error !== undefined || !res.rows) task.reject(new Error(res.error ?? 'describe worker sent no records'));
      else task.resolve(withMessages(res.rows, task.messages));
    }
    this.pump();
  }

  /** The worker is gone or broken: its tasks fail, the rest of the queue goes to other workers. */
  private fail(w: PoolWorker, err: Error): void {
    if (!this.workers.delete(w) && !w.tasks.size) return;
    void this.retire(w, err);
    this.pump();
  }

  /** An idle worker leaves the pool and ends. */
  private end(w: PoolWorker): void {
    this.workers.delete(w);
    void this.retire(w, null);
  }

  private async retire(w: PoolWorker, err: Error | null): Promise<void> {
    w.idleTimer?.();
    for (const task of w.tasks.values()) task.reject(err ?? new Error('describe worker retired'));
    w.tasks.clear();
    w.worker.removeAllListeners('exit');
    w.worker.removeAllListeners('error');
    w.worker.on('error', () => undefined);
    await w.worker.terminate();
  }
}

let shared: DescribePool | null = null;

/** The process-wide pool folder syncs describe with. */
export function describePool(): DescribePool {
  shared ??= new DescribePool();
  return shared;
}
