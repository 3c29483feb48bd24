import { performance } from 'node:perf_hooks';
import type { GateObserver } from './observer';

export interface LimiterOptions {
  /** Most requests the vendor may count in any window of `windowMs`. */
  perWindow: number;
  /** Most requests running at once. */
  maxInFlight: number;
  /** The vendor's counting window: "15 requests per second". */
  windowMs: number;
  /** Told when a request joins the queue and when it gets its slot (metrics). */
  observer?: GateObserver;
}

/** The reading interface's documented limits (spec section 8). */
export const vendorLimits: LimiterOptions = { perWindow: 15, maxInFlight: 15, windowMs: 1000 };

/** A granted request. */
export interface Slot {
  /** The vendor began its answer (status and headers arrived): it has seen the request. */
  answered(): void;
  /** The request is over (answer read, failed or abandoned); its place in flight is free. */
  release(): void;
}

/**
 * Per-mailbox request gate, first come first served. A request counts against the window from
 * its start until `windowMs` after its answer began (or, without an answer, after it ended):
 * the vendor saw it arrive somewhere in between, so however much a busy event loop or the
 * network delays one request and not the next, no 16 arrivals can ever fall inside one vendor
 * second. (Of any 16 arrivals within a second, the last-started request would have found the
 * 15 others still counted, and waited.) Counting from the answer's start, not its end, keeps
 * the time a large answer takes to transfer and parse out of the window. Monotonic time, so a
 * wall-clock jump cannot open the gate early. A 429 pauses the whole queue for Retry-After
 * instead of letting every caller retry at once.
 */
export class RateLimiter {
  /** When the counted requests that were answered got their answer, oldest first. */
  private readonly answeredAt: number[] = [];
  /** Granted and not answered yet: counted whatever the time. */
  private unanswered = 0;
  private inFlight = 0;
  private readonly queue: Array<() => void> = [];
  private pausedUntil = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly opts: LimiterOptions;

  constructor(opts: Partial<LimiterOptions> = {}) {
    this.opts = { ...vendorLimits, ...opts };
  }

  /** Waits for a slot; its `release` must be called exactly once, when the request is over (for a streamed body: when the stream ends). */
  acquire(): Promise<Slot> {
    const queuedAt = performance.now();
    return new Promise((resolve) => {
      this.queue.push(() => {
        this.opts.observer?.onStart(performance.now() - queuedAt, this.queue.length);
        let answered = false;
        let released = false;
        const answer = () => {
          if (answered) return;
          answered = true;
          this.unanswered--;
          this.answeredAt.push(performance.now());
          this.pump(); // sets the timer for when this answer leaves the window
        };
        resolve({
          answered: answer,
          release: () => {
            if (released) return;
            released = true;
            this.inFlight--;
            answer();
            this.pump();
          },
        });
      });
      this.opts.observer?.onQueue(this.queue.length);
      this.pump();
    });
  }

  async run<T>(task: (answered: () => void) => Promise<T>): Promise<T> {
    const slot = await this.acquire();
    try {
      return await task(slot.answered);
    } finally {
      slot.release();
    }
  }

  /** Holds every queued and future request until `ms` from now. */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, performance.now() + ms);
  }

  private wakeAt(at: number): void {
    if (this.timer) return;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.pump();
      },
      Math.max(1, Math.ceil(at - performance.now())),
    );
  }

  private pump(): void {
    const { perWindow, maxInFlight, windowMs } = this.opts;
    while (this.queue.length) {
      const now = performance.now();
      if (now < this.pausedUntil) {
        this.wakeAt(this.pausedUntil);
        return;
      }
      while (this.answeredAt.length && this.answeredAt[0] <= now - windowMs) this.answeredAt.shift();
      if (this.inFlight >= maxInFlight) return; // a finishing request pumps again
      if (this.unanswered + this.answeredAt.length >= perWindow) {
        if (this.answeredAt.length) this.wakeAt(this.answeredAt[0] + windowMs);
        return;
      }
      this.inFlight++;
      this.unanswered++;
      this.queue.shift()!();
    }
  }
}
