/**
 * Per-mailbox request gate: at most `perWindow` request starts in any sliding window and at
 * most `maxInFlight` requests running, FIFO. The window is padded a little beyond the
 * vendor's 1 s so that network jitter can never make the vendor count one request too many.
 * A 429 pauses the whole queue for Retry-After instead of letting every caller retry at once.
 */
export class RateLimiter {
  private readonly starts: number[] = [];
  private inFlight = 0;
  private readonly queue: Array<() => void> = [];
  private pausedUntil = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly perWindow = 15,
    private readonly maxInFlight = 15,
    private readonly windowMs = 1050,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    await new Promise<void>((resolve) => {
      this.queue.push(resolve);
      this.pump();
    });
    try {
      return await task();
    } finally {
      this.inFlight--;
      this.pump();
    }
  }

  /** Holds every queued and future request until `ms` from now. */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
  }

  private wakeAt(at: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.pump();
    }, Math.max(1, at - Date.now()));
  }

  private pump(): void {
    while (this.queue.length) {
      const now = Date.now();
      if (now < this.pausedUntil) return this.wakeAt(this.pausedUntil);
      while (this.starts.length && this.starts[0] <= now - this.windowMs) this.starts.shift();
      if (this.inFlight >= this.maxInFlight) return; // a finishing request pumps again
      if (this.starts.length >= this.perWindow) return this.wakeAt(this.starts[0] + this.windowMs);
      this.starts.push(now);
      this.inFlight++;
      this.queue.shift()!();
    }
  }
}
