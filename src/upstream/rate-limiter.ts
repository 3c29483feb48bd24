import { systemClock, type Clock } from '../util/clock';
import type { GateObserver } from './observer';

export interface LimiterOptions {
  /** Most requests the vendor may count in any window of `windowMs`. */
  perWindow: number;
  /** Most requests running at once. */
  maxInFlight: number;
  /** The vendor's counting window: "15 requests per second". */
  windowMs: number;
  /** A request queued this long goes ahead of every lane (oldest first), so no lane starves. */
  agingMs: number;
  /** Told when a request joins the queue and when it gets its slot (metrics). */
  observer?: GateObserver;
  /**
   * No request starts before this time of the limiter's clock: the window a process before
   * this one may have filled (vendor-handover.ts).
   */
  quietUntil?: number;
}

/** The reading interface's documented limits (spec section 8), and the aging bound. */
export const vendorLimits: LimiterOptions = { perWindow: 15, maxInFlight: 15, windowMs: 1000, agingMs: 10_000 };

/**
 * Who is waiting for a request, highest priority first: a client waiting for content
 * (bodies, attachment bytes, search), a client's write, incremental polls, first syncs and
 * full reconciliations, prefetch.
 */
export const requestLanes = ['content', 'write', 'poll', 'sync', 'prefetch'] as const;
export type Lane = (typeof requestLanes)[number];

/** The gate's lanes: the token refresh, which every other request of the mailbox waits for, comes first. */
export const gateLanes = ['refresh', ...requestLanes] as const;
export type GateLane = (typeof gateLanes)[number];

/** 0 for the highest lane. */
export const laneRank = (lane: GateLane) => gateLanes.indexOf(lane);

/** The highest of the lanes given. */
export function highestLane<L extends GateLane>(lanes: readonly L[]): L {
  return lanes.reduce((best, l) => (laneRank(l) < laneRank(best) ? l : best));
}

/** What the window counts now (RateLimiter.counted). */
export interface WindowState {
  requests: number;
  freesAt: number;
}

/** A granted request. */
export interface Slot {
  /** The vendor began its answer (status and headers arrived): it has seen the request. */
  answered(): void;
  /** The request is over (answer read, failed or abandoned); its place in flight is free. */
  release(): void;
}

interface Waiter {
  lane: GateLane;
  queuedAt: number;
  /** Arrival order across lanes, for the aged. */
  seq: number;
  grant(): void;
}

/**
 * Per-mailbox request gate. A request counts against the window from its start until
 * `windowMs` after its answer began (or, without an answer, after it ended): the vendor saw it
 * arrive somewhere in between, so however much a busy event loop or the network delays one
 * request and not the next, no 16 arrivals can ever fall inside one vendor second. (Of any 16
 * arrivals within a second, the last-started request would have found the 15 others still
 * counted, and waited.) Counting from the answer's start, not its end, keeps the time a large
 * answer takes to transfer and parse out of the window. Monotonic time, so a wall-clock jump
 * cannot open the gate early. A 429 pauses the whole queue for Retry-After instead of letting
 * every caller retry at once.
 *
 * Which queued request starts next: a token refresh first; then any request that has waited
 * `agingMs`, oldest first; then the highest lane, first come first served within it. Aging
 * bounds every wait: once aged, a request is behind only the refresh and requests that
 * arrived before it, so a steady stream of clicks cannot hold a sync back for more than
 * `agingMs` plus its own turn.
 */
export class RateLimiter {
  /** When the counted requests that were answered got their answer, oldest first. */
  private readonly answeredAt: number[] = [];
  /** Granted and not answered yet: counted whatever the time. */
  private unanswered = 0;
  private inFlight = 0;
  /** One FIFO per lane, in gateLanes order. */
  private readonly queues: Waiter[][] = gateLanes.map(() => []);
  private seq = 0;
  private pausedUntil = Number.NEGATIVE_INFINITY;
  private timer: { at: number; cancel(): void } | null = null;
  private readonly opts: LimiterOptions;

  constructor(
    opts: Partial<LimiterOptions> = {},
    private readonly clock: Clock = systemClock,
  ) {
    this.opts = { ...vendorLimits, ...opts };
    if (opts.quietUntil !== undefined) this.pausedUntil = opts.quietUntil;
  }

  /**
   * Waits for a slot in `lane`; its `release` must be called exactly once, when the request is
   * over (for a streamed body: when the stream ends).
   */
  acquire(lane: GateLane): Promise<Slot> {
    const queuedAt = this.clock.now();
    return new Promise((resolve) => {
      this.queues[laneRank(lane)].push({
        lane,
        queuedAt,
        seq: this.seq++,
        grant: () => {
          this.opts.observer?.onStart(this.clock.now() - queuedAt, this.waiting());
          resolve(this.slot());
        },
      });
      this.opts.observer?.onQueue(this.waiting());
      this.pump();
    });
  }

  async run<T>(lane: GateLane, task: (answered: () => void) => Promise<T>): Promise<T> {
    const slot = await this.acquire(lane);
    try {
      return await task(slot.answered);
    } finally {
      slot.release();
    }
  }

  /** Holds every queued and future request until `ms` from now. */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + ms);
    this.pump();
  }

  /**
   * The window now: how many requests it counts (started within it, or not answered yet), and
   * when the first counted one leaves it (never, while none of them has been answered).
   */
  counted(): WindowState {
    const now = this.clock.now();
    const answered = this.answeredAt.filter((at) => at > now - this.opts.windowMs);
    const freesAt = answered.length ? answered[0] + this.opts.windowMs : Number.POSITIVE_INFINITY;
    return { requests: answered.length + this.unanswered, freesAt };
  }

  /** The requests the window admits, and its length. */
  get window(): { perWindow: number; windowMs: number } {
    return { perWindow: this.opts.perWindow, windowMs: this.opts.windowMs };
  }

  private waiting(): number {
    return this.queues.reduce((n, q) => n + q.length, 0);
  }

  /** Requests waiting, per lane (for logs and tests). */
  queued(): Record<GateLane, number> {
    return Object.fromEntries(gateLanes.map((l, i) => [l, this.queues[i].length])) as Record<GateLane, number>;
  }

  private slot(): Slot {
    let answered = false;
    let released = false;
    const answer = () => {
      if (answered) return;
      answered = true;
      this.unanswered--;
      this.answeredAt.push(this.clock.now());
      this.pump(); // sets the timer for when this answer leaves the window
    };
    return {
      answered: answer,
      release: () => {
        if (released) return;
        released = true;
        this.inFlight--;
        answer();
        this.pump();
      },
    };
  }

  /** Removes and returns the waiter to start next (see the class comment). */
  private next(now: number): Waiter | undefined {
    const [refresh, ...lanes] = this.queues;
    if (refresh.length) return refresh.shift();
    let aged: Waiter[] | null = null;
    for (const q of lanes) {
      const head = q[0];
      if (head && now - head.queuedAt >= this.opts.agingMs && (!aged || head.seq < aged[0].seq)) aged = q;
    }
    return (aged ?? lanes.find((q) => q.length))?.shift();
  }

  private wakeAt(at: number): void {
    if (this.timer && this.timer.at <= at) return;
    this.timer?.cancel();
    const cancel = this.clock.after(Math.max(1, Math.ceil(at - this.clock.now())), () => {
      this.timer = null;
      this.pump();
    });
    this.timer = { at, cancel };
  }

  private pump(): void {
    const { perWindow, maxInFlight, windowMs } = this.opts;
    while (this.queues.some((q) => q.length)) {
      const now = this.clock.now();
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
      this.next(now)!.grant();
    }
  }
}
