import type { Lane, WindowState } from './rate-limiter';
import { laneRank } from './rate-limiter';
import type { Command, CommandResult } from './types';
import type { Clock } from '../util/clock';

interface Unit {
  /** When it was issued (on the pacing's clock). */
  at: number;
  commands: Command[];
  lane: Lane;
  resolve(results: CommandResult[]): void;
  reject(err: unknown): void;
}

/** A write request waiting for its place in the gate: it takes more units until it is granted. */
interface Batch {
  units: Unit[];
  size: number;
  lane: Lane;
  sealed: boolean;
}

/**
 * Sends a request of the commands that `take()` returns when the gate grants it: until then
 * the batch keeps taking the writes issued meanwhile.
 */
export type SendWhenGranted = (take: () => Command[], lane: Lane) => Promise<CommandResult[]>;

/**
 * The vendor's window as write requests see it: it admits `perWindow` requests in `windowMs`
 * (15 a second), `counted` says what it counts now.
 */
export interface WritePacing {
  clock: Clock;
  perWindow: number;
  windowMs: number;
  counted(): WindowState;
}

/** Writes issued this close together are one caller's: a STORE issues its flag and label commands at once. */
const sameMomentMs = 1;

/**
 * Writes of many clients share requests when they would otherwise wait. A write joins the
 * request that is still waiting for its place in the gate, if that request has room (up to
 * `maxCommands` commands) and is in a lane at least as high; otherwise it starts a request
 * of its own, with at most `maxOutstanding` write requests queued in the gate or on the wire.
 * A request's commands are fixed only when the gate grants it, so when the vendor's second is
 * full, every write issued during the wait rides in the next request instead of queueing
 * behind it: the writes a second can carry grow with the wait, not the requests. A lone write
 * goes at once, so sharing only ever replaces waiting. A unit (one caller's commands, at most
 * `maxCommands`) is never split; every unit of a request gets that request's results for its
 * commands, or its failure (each caller then settles its own ids: read back after a lost
 * answer, repeated only after proof nothing happened).
 *
 * While the window is crowded (at least half its requests counted), a write request waits to
 * carry the writes of more than one caller. It may go once it carries writes issued at `k`
 * different moments, `k` being the moments writes were issued in the last window over the
 * requests the window admits, rounded up, at least 2: the requests keep up with the writes
 * without using the window up. Short of that it may go a spacing (`windowMs / perWindow`, 67
 * ms) after its first write while writes come at least as often as the window admits requests
 * (another is likely within the spacing), else a spacing after the last write request started
 * (one writer: waiting would gather nobody). Either way it starts no sooner than the places left
 * in the window, spread evenly from the last start, reach the time the first counted request
 * leaves it, and no later for that than a spacing after the last start: after an idle spell the
 * writes going at once use half the window in a burst, and without the spread the rest went in
 * the next few requests and the writes after them waited up to 600 ms for a place. Sent at once
 * as they come, lone writes would use up the window in a burst (15 requests of one or two
 * STOREs each within a few hundred ms), and every write after them would wait for the first to
 * leave the window, up to a second; the window frees its places in the same bursts a second
 * later. Gathered, a write waits at most a spacing for its request. With room in the window a
 * write goes at once.
 */
export class WriteBatcher {
  private readonly pending: Unit[] = [];
  private waiting: Batch | null = null;
  private outstanding = 0;
  private lastStart = Number.NEGATIVE_INFINITY;
  /** The moments writes were issued within the last window, oldest first. */
  private readonly issued: number[] = [];
  private wake: { at: number; cancel(): void } | null = null;

  constructor(
    private readonly send: SendWhenGranted,
    private readonly maxCommands: number,
    private readonly maxOutstanding: number,
    private readonly pacing: WritePacing | null = null,
  ) {}

  submit(commands: Command[], lane: Lane): Promise<CommandResult[]> {
    if (commands.length > this.maxCommands) throw new Error(`a write unit holds at most ${this.maxCommands} commands`);
    return new Promise((resolve, reject) => {
      this.pending.push({ at: this.note(), commands, lane, resolve, reject });
      this.pump();
    });
  }

  private fits(batch: Batch | null, unit: Unit): batch is Batch {
    return (
      batch !== null &&
      !batch.sealed &&
      batch.size + unit.commands.length <= this.maxCommands &&
      laneRank(unit.lane) >= laneRank(batch.lane)
    );
  }

  private pump(): void {
    while (this.pending.length) {
      const unit = this.pending[0];
      if (this.fits(this.waiting, unit)) {
        this.waiting.units.push(this.pending.shift()!);
        this.waiting.size += unit.commands.length;
      } else if (this.outstanding < this.maxOutstanding && !this.held()) {
        this.dispatch(this.pending.shift()!);
      } else return;
    }
  }

  /** Records a write issued now, returning the time. */
  private note(): number {
    if (!this.pacing) return 0;
    const now = this.pacing.clock.now();
    const last = this.issued.at(-1);
    if (last === undefined || now - last >= sameMomentMs) this.issued.push(now);
    this.forget(now);
    return now;
  }

  /** Drops the moments that left the window. */
  private forget(now: number): void {
    const windowMs = this.pacing?.windowMs ?? 0;
    while (this.issued.length && this.issued[0] <= now - windowMs) this.issued.shift();
  }

  /** True while the pending writes must wait to start a request; a timer pumps when they may. */
  private held(): boolean {
    const until = this.heldUntil();
    if (until === null) return false;
    if (this.wake && this.wake.at <= until) return true;
    this.wake?.cancel();
    const cancel = this.pacing!.clock.after(until - this.pacing!.clock.now(), () => {
      this.wake = null;
      this.pump();
    });
    this.wake = { at: until, cancel };
    return true;
  }

  /** When the pending writes may start a request while the window is crowded (class comment); null: now. */
  private heldUntil(): number | null {
    if (!this.pacing) return null;
    const { clock, perWindow, windowMs } = this.pacing;
    const { requests, freesAt } = this.pacing.counted();
    if (requests * 2 < perWindow) return null;
    const now = clock.now();
    this.forget(now);
    const spacing = windowMs / perWindow;
    // a spacing after the last start at most, sooner if the places left, spread evenly from
    // it, reach the first counted one's freeing: (left * last + freesAt) / (left + 1)
    const left = Math.max(0, perWindow - requests);
    const spread =
      Number.isFinite(this.lastStart) && Number.isFinite(freesAt)
        ? Math.min(this.lastStart + spacing, (left * this.lastStart + freesAt) / (left + 1))
        : this.lastStart + spacing;
    const enough = moments(this.pending) >= Math.max(2, Math.ceil(this.issued.length / perWindow));
    const first = this.issued.length >= perWindow ? this.pending[0].at : this.lastStart;
    const until = enough ? spread : Math.max(spread, first + spacing);
    return until > now ? until : null;
  }

  private dispatch(first: Unit): void {
    if (this.pacing) this.lastStart = this.pacing.clock.now();
    const batch: Batch = { units: [first], size: first.commands.length, lane: first.lane, sealed: false };
    this.waiting = batch;
    this.outstanding++;
    // no unit joins once the request is granted, or settled without ever being granted
    const seal = () => {
      batch.sealed = true;
      if (this.waiting === batch) this.waiting = null;
    };
    const request = this.send(() => {
      seal();
      return batch.units.flatMap((u) => u.commands);
    }, batch.lane);
    request.then(
      (results) => {
        seal();
        let at = 0;
        for (const u of batch.units) {
          u.resolve(results.slice(at, at + u.commands.length));
          at += u.commands.length;
        }
      },
      (err) => {
        seal();
        for (const u of batch.units) u.reject(err);
      },
    );
    request
      .catch(() => undefined)
      .finally(() => {
        this.outstanding--;
        this.pump();
      });
  }
}

/** How many different moments the units were issued at (units are in the order issued). */
function moments(units: readonly Unit[]): number {
  let count = 0;
  let last = Number.NEGATIVE_INFINITY;
  for (const u of units) {
    if (u.at - last < sameMomentMs) continue;
    count++;
    last = u.at;
  }
  return count;
}
