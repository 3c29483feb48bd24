import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from './util/atomic-file';

/**
 * What the process before this one may have left in the vendor's rate window. The vendor
 * counts a mailbox's requests whichever process sends them, but a new process's gate starts
 * empty: started again within a second of a process that had its window full (`systemctl
 * restart` during a sync, a container restarted at once after a crash), its first requests
 * would join the old ones and be refused. So every start records that it runs, and a clean
 * stop records when it ended; the next start holds every vendor request until the window the
 * last run may have filled is over:
 * - the last run stopped cleanly: until a window after its end (nothing, after a longer pause);
 * - it did not (killed, crashed) or the record cannot be read: one whole window from now,
 *   since its last request may have been just before this start;
 * - there is no record (a new state directory, or one from before this record): nothing.
 * Wall-clock times, as they span processes; a jump of the clock is bounded by the window.
 * Another node taking over a mailbox waits for its lease, which is longer than the window.
 */

/** The record's file in the state directory. */
export const handoverFile = 'vendor-window.json';

export interface VendorHandover {
  /** How long vendor requests wait after this start. */
  holdMs: number;
  /** Records a clean stop: called once the vendor client has closed, so no request follows. */
  stopped(): void;
}

type LastRun = { running: true } | { stoppedAt: number };

function read(file: string): LastRun | 'none' | 'unreadable' {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'none' : 'unreadable';
  }
  try {
    const rec = JSON.parse(text) as Partial<{ running: unknown; stoppedAt: unknown }>;
    if (rec.running === true) return { running: true };
    if (typeof rec.stoppedAt === 'number' && Number.isFinite(rec.stoppedAt)) return { stoppedAt: rec.stoppedAt };
  } catch {
    // a torn or foreign file: as if the last run had not stopped cleanly
  }
  return 'unreadable';
}

/** Reads what the last run left in `stateDir` and records that this one runs. */
export function takeVendorHandover(stateDir: string, windowMs: number, now: () => number = Date.now): VendorHandover {
  const file = path.join(stateDir, handoverFile);
  const last = read(file);
  const holdMs =
    last === 'none'
      ? 0
      : last === 'unreadable' || 'running' in last
        ? windowMs
        : Math.min(windowMs, Math.max(0, last.stoppedAt + windowMs - now()));
  writeFileAtomic(file, JSON.stringify({ running: true }));
  return {
    holdMs,
    stopped: () => writeFileAtomic(file, JSON.stringify({ stoppedAt: now() })),
  };
}
