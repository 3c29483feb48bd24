import fs from 'node:fs';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { describeJson, type MetadataRecord } from './metadata-record';

/**
 * Worker side of describe-pool.ts: describes a chunk of messages into stored rows. Messages come
 * as their JSON (the rows' `message`, which the pool makes anyway) and rows go back without it:
 * copying strings between threads is a copy of their bytes, where an object graph is walked and
 * rebuilt object by object, and the strings of waiting messages cost the young collections of
 * this thread's heap a copy each instead of a walk.
 */

export interface DescribeRequest {
  id: number;
  /** JSON of each message. */
  messages: string[];
}

/** A row without the message's JSON, which the pool has. */
export type DescribedRow = Omit<MetadataRecord, 'message'>;

export interface DescribeResponse {
  id: number;
  error?: string;
  rows?: DescribedRow[];
}

function describedRow(json: string): DescribedRow {
  const { message: _, ...row } = describeJson(json);
  return row;
}

/**
 * Describing is background work: a lower priority for this thread keeps the main thread (list
 * pages, IMAP answers) and everything else on the machine responsive while workers soak up
 * the idle CPU. Linux-only (a thread's own id from /proc/thread-self); elsewhere a no-op.
 */
function lowerPriority(nice: number): void {
  try {
    const tid = Number(/task\/(\d+)$/.exec(fs.readlinkSync('/proc/thread-self'))?.[1]);
    if (tid && nice > os.getPriority(tid)) os.setPriority(tid, nice);
  } catch {
    // not Linux, or not permitted: keep the priority
  }
}
lowerPriority(Number((workerData as { nice?: number } | undefined)?.nice ?? 0));

parentPort?.on('message', (req: DescribeRequest) => {
  let res: DescribeResponse;
  try {
    res = { id: req.id, rows: req.messages.map(describedRow) };
  } catch (err) {
    res = { id: req.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  parentPort!.postMessage(res);
});
