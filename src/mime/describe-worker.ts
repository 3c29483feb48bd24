import fs from 'node:fs';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { VendorMessage } from '../upstream/types';
import { describeRecord } from './metadata-record';

/**
 * Worker side of describe-pool.ts: describes and encodes a chunk of vendor messages. The
 * deflated blobs travel back in one transferred ArrayBuffer (offsets per record).
 */

export interface DescribeRequest {
  id: number;
  messages: VendorMessage[];
}

export interface DescribeResponse {
  id: number;
  error?: string;
  records?: Array<{ messageUid: string; size: number; imap: string; offset: number; length: number }>;
  blob?: ArrayBuffer;
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
    const records = req.messages.map(describeRecord);
    const blob = Buffer.allocUnsafeSlow(records.reduce((n, r) => n + r.data.length, 0));
    let offset = 0;
    const list = records.map((r) => {
      r.data.copy(blob, offset);
      const entry = { messageUid: r.messageUid, size: r.size, imap: r.imap, offset, length: r.data.length };
      offset += r.data.length;
      return entry;
    });
    res = { id: req.id, records: list, blob: blob.buffer as ArrayBuffer };
    parentPort!.postMessage(res, [res.blob!]);
  } catch (err) {
    res = { id: req.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
    parentPort!.postMessage(res);
  }
});
