import { performance } from 'node:perf_hooks';

export interface LimiterOptions {
  /** Most request starts in any sliding window. */
  perWindow: number;
  /** Most requests running at once. */
  maxInFlight: number;
  /**
   * The vendor counts 15 per second; the window is padded beyond 1000 ms so that network
   * jitter (a request delayed on its way while the next one is not) can never make the vendor
   * see a 16th request inside its second.
   */
  windowMs: number;
}

/** The reading interface's documented limits (spec section 8) plus the padding above. */
export const vendorLimits: LimiterOptions = { perWindow: 15, maxInFlight: 15, windowMs: 1050 };

/**
 * Per-mailbox request gate: at most `perWindow` starts in any sliding window and at most
 * `maxInFlight` requests running, first come first served. Monotonic time, so a wall-clock
 * jump cannot open the gate early. A 429 pauses the whole queue for Retry-After instead of
 * letting every caller retry at once.
 */
export class RateLimiter {
  private readonly starts: number[] = [];
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
      while (this.starts.length && this.starts[0] <= now - windowMs) this.starts.shift();
      if (this.inFlight >= maxInFlight) return; // a finishing request pumps again
      if (this.starts.length >= perWindow) return this.wakeAt(this.starts[0] + windowMs);
      this.starts.push(now);
      this.inFlight++;
      this.queue.shift()!();
    }
  }
}
