import fs from 'node:fs';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { MailMessage } from '../domain/message';
import { describeRecord, type MetadataRecord } from './metadata-record';

/** Worker side of describe-pool.ts: describes a chunk of messages into stored rows. */

export interface DescribeRequest {
  id: number;
  messages: MailMessage[];
}

export interface DescribeResponse {
  id: number;
  error?: string;
  records?: MetadataRecord[];
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
    res = { id: req.id, records: req.messages.map(describeRecord) };
  } catch (err) {
    res = { id: req.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  parentPort!.postMessage(res);
});
