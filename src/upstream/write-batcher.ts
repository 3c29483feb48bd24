import type { Lane } from './rate-limiter';
import { laneRank } from './rate-limiter';
import type { Command, CommandResult } from './types';
import type { Clock } from '../util/clock';

interface Unit {
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
 * How far apart write requests start while the vendor's window is crowded: `crowded` says
 * whether it is (at least half its requests counted), `spacingMs` is the window over the
 * requests it admits (67 ms for 15 a second).
 */
export interface WritePacing {
  clock: Clock;
  spacingMs: number;
  crowded(): boolean;
}

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
 * While the window is crowded, a request starts no sooner than `spacingMs` after the last, and
 * the writes issued meanwhile ride in it. Sent at once as they come, lone writes would use up
 * the window in a burst (15 requests of one or two STOREs each within a few hundred ms), and
 * every write after them would wait for the first to leave the window, up to a second; the
 * window frees its places in the same bursts a second later. Spaced, a write waits at most
 * `spacingMs` for its request. With room in the window a write goes at once.
 */
export class WriteBatcher {
  private readonly pending: Unit[] = [];
  private waiting: Batch | null = null;
  private outstanding = 0;
  private lastStart = Number.NEGATIVE_INFINITY;
  private spacing: (() => void) | null = null;

  constructor(
    private readonly send: SendWhenGranted,
    private readonly maxCommands: number,
    private readonly maxOutstanding: number,
    private readonly pacing: WritePacing | null = null,
  ) {}

  submit(commands: Command[], lane: Lane): Promise<CommandResult[]> {
    if (commands.length > this.maxCommands) throw new Error(`a write unit holds at most ${this.maxCommands} commands`);
    return new Promise((resolve, reject) => {
      this.pending.push({ commands, lane, resolve, reject });
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
      } else if (this.outstanding < this.maxOutstanding && !this.spaced()) {
        this.dispatch(this.pending.shift()!);
      } else return;
    }
  }

  /** True while a new request must wait for its spacing; a timer pumps once it has passed. */
  private spaced(): boolean {
    if (!this.pacing?.crowded()) return false;
    const wait = this.lastStart + this.pacing.spacingMs - this.pacing.clock.now();
    if (wait <= 0) return false;
    this.spacing ??= this.pacing.clock.after(wait, () => {
      this.spacing = null;
      this.pump();
    });
    return true;
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
