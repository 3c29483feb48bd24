import type { Clock } from '../../src/util/clock';

/** A Clock that moves only when the test says so; due timers fire in time order as it advances. */
export class ManualClock implements Clock {
  private t: number;
  private timers: Array<{ at: number; fn: () => void; id: number }> = [];
  private ids = 0;
  private running = false;
  private driving = false;

  constructor(start = 0) {
    this.t = start;
  }

  /** A property, so `clock.now` can be handed over as a function. */
  readonly now = (): number => this.t;

  /** Moves time forward at once, for code that only reads the clock (it fires no timers). */
  skip(ms: number): void {
    this.t += ms;
  }

  after(ms: number, fn: () => void): () => void {
    const id = this.ids++;
    this.timers.push({ at: this.t + ms, fn, id });
    if (this.running) void this.drive();
    return () => {
      this.timers = this.timers.filter((t) => t.id !== id);
    };
  }

  /**
   * Until stop(), moves on to each pending timer in turn once real I/O has had a moment (a real
   * millisecond): for code on this clock that also waits on sockets, like a vendor client and the
   * sandbox sharing it. Time moves only to the next moment something waits for, never with the
   * machine's speed; a request still on the wire when it moves has merely met a slow network.
   */
  run(): void {
    this.running = true;
    void this.drive();
  }

  stop(): void {
    this.running = false;
  }

  private async drive(): Promise<void> {
    if (this.driving) return;
    this.driving = true;
    try {
      while (this.running && this.timers.length) {
        await new Promise((r) => setTimeout(r, 1));
        const next = Math.min(...this.timers.map((t) => t.at));
        if (this.running && Number.isFinite(next)) await this.advance(Math.max(0, next - this.t));
      }
    } finally {
      this.driving = false;
    }
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way (with settled promises between). */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await settle();
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.t = Math.max(this.t, due.at);
      due.fn();
    }
    this.t = end;
    await settle();
  }
}

/** Lets every pending promise chain run (a macrotask turn drains the microtask queue). */
export function settle(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}
