import { performance } from 'node:perf_hooks';

export interface LimiterOptions {
  /** Most requests the vendor may count in any window of `windowMs`. */
  perWindow: number;
  /** Most requests running at once. */
  maxInFlight: number;
  /** The vendor's counting window: "15 requests per second". */
  windowMs: number;
}

/** The reading interface's documented limits (spec section 8). */
export const vendorLimits: LimiterOptions = { perWindow: 15, maxInFlight: 15, windowMs: 1000 };

/**
 * Per-mailbox request gate, first come first served. A request counts against the window from
 * its start until `windowMs` after its answer ended: the vendor saw it arrive somewhere in
 * between, so however much a busy event loop or the network delays one request and not the
 * next, no 16 arrivals can ever fall inside one vendor second. (Of any 16 arrivals within a
 * second, the last-started request would have found the 15 others still counted, and waited.)
 * Monotonic time, so a wall-clock jump cannot open the gate early. A 429 pauses the whole
 * queue for Retry-After instead of letting every caller retry at once.
 */
export class RateLimiter {
  /** End times of finished requests still counted, oldest first. */
  private readonly ended: number[] = [];
  private inFlight = 0;
  private readonly queue: Array<() => void> = [];
  private pausedUntil = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly opts: LimiterOptions;

  constructor(opts: Partial<LimiterOptions> = {}) {
    this.opts = { ...vendorLimits, ...opts };
  }

  /**
   * Waits for a slot; the returned function frees it and must be called exactly once, when
   * the vendor is done with the request (for a streamed body: when the stream ends).
   */
  acquire(): Promise<() => void> {
    return new Promise((resolve) => {
      this.queue.push(() => {
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          this.inFlight--;
          this.ended.push(performance.now());
          this.pump();
        });
      });
      this.pump();
    });
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await task();
    } finally {
      release();
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
      if (now < this.pausedUntil) return this.wakeAt(this.pausedUntil);
      while (this.ended.length && this.ended[0] <= now - windowMs) this.ended.shift();
      if (this.inFlight >= maxInFlight) return; // a finishing request pumps again
      if (this.inFlight + this.ended.length >= perWindow) return this.ended.length ? this.wakeAt(this.ended[0] + windowMs) : undefined;
      this.inFlight++;
      this.queue.shift()!();
    }
  }
}
