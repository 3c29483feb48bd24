import { performance } from 'node:perf_hooks';

export interface SandboxStats {
  requests: number;
  /** Most requests admitted within any sliding 1 s window. */
  maxPerSecond: number;
  maxInFlight: number;
  rateLimited: number;
  commands: Record<string, number>;
  rawDownloads: number;
  refreshes: number;
}

const windowMs = 1000;

/** Start times within the last second, read from the traffic clock. */
class SlidingWindow {
  private starts: number[] = [];

  count(now: number): number {
    let drop = 0;
    while (drop < this.starts.length && this.starts[drop] <= now - windowMs) drop++;
    if (drop) this.starts = this.starts.slice(drop);
    return this.starts.length;
  }

  add(now: number): void {
    this.starts.push(now);
  }

  /** Whole seconds until the oldest start leaves the window (at least 1). */
  retryAfter(now: number): number {
    const oldest = this.starts[0] ?? now;
    return Math.max(1, Math.ceil((oldest + windowMs - now) / 1000));
  }
}

function emptyStats(): SandboxStats {
  return { requests: 0, maxPerSecond: 0, maxInFlight: 0, rateLimited: 0, commands: {}, rawDownloads: 0, refreshes: 0 };
}

class MailboxTraffic {
  stats = emptyStats();
  window = new SlidingWindow();
  inFlight = 0;
}

export type Admission = { ok: true; done(): void } | { ok: false; retryAfter: number };

/**
 * The reading interface's limits (spec section 8): per (client IP, mailbox) at most 15
 * requests started in any sliding second and at most 15 in flight. Also keeps per-mailbox
 * statistics of what was admitted, so tests and benchmarks can prove a client stays polite.
 */
export class Traffic {
  private readonly limiters = new Map<string, { window: SlidingWindow; inFlight: number }>();
  private readonly mailboxes = new Map<string, MailboxTraffic>();
  /** Requests the vendor hosts received, refused ones included (a dead token is tied to no mailbox). */
  received = 0;

  /**
   * `clock` is monotonic milliseconds, not the sandbox's calendar clock: jumping that one by hours
   * (token and quarantine expiry) must not touch the rate windows. Tests pass a manual clock so
   * "16 requests within one second" holds however slowly the machine sends them.
   */
  constructor(
    private readonly clock: () => number = () => performance.now(),
    private readonly perSecond = 15,
    private readonly maxInFlight = 15,
  ) {}

  private of(mailbox: string): MailboxTraffic {
    let t = this.mailboxes.get(mailbox);
    if (!t) {
      t = new MailboxTraffic();
      this.mailboxes.set(mailbox, t);
    }
    return t;
  }

  admit(ip: string, mailbox: string): Admission {
    const now = this.clock();
    const key = `${ip}\n${mailbox}`;
    let limiter = this.limiters.get(key);
    if (!limiter) {
      limiter = { window: new SlidingWindow(), inFlight: 0 };
      this.limiters.set(key, limiter);
    }
    const t = this.of(mailbox);
    if (limiter.window.count(now) >= this.perSecond) {
      t.stats.rateLimited++;
      return { ok: false, retryAfter: limiter.window.retryAfter(now) };
    }
    if (limiter.inFlight >= this.maxInFlight) {
      t.stats.rateLimited++;
      return { ok: false, retryAfter: 1 };
    }
    limiter.window.add(now);
    limiter.inFlight++;
    t.window.add(now);
    t.inFlight++;
    t.stats.requests++;
    t.stats.maxPerSecond = Math.max(t.stats.maxPerSecond, t.window.count(now));
    t.stats.maxInFlight = Math.max(t.stats.maxInFlight, t.inFlight);
    const entry = limiter;
    let finished = false;
    return {
      ok: true,
      done: () => {
        if (finished) return;
        finished = true;
        entry.inFlight--;
        t.inFlight--;
      },
    };
  }

  countCommand(mailbox: string, command: string): void {
    const c = this.of(mailbox).stats.commands;
    c[command] = (c[command] ?? 0) + 1;
  }

  countRaw(mailbox: string): void {
    this.of(mailbox).stats.rawDownloads++;
  }

  countRefresh(mailbox: string): void {
    this.of(mailbox).stats.refreshes++;
  }

  /** One mailbox's numbers, or all mailboxes combined (sums; maxima of the maxima). */
  stats(mailbox?: string): SandboxStats {
    if (mailbox !== undefined) return structuredClone(this.mailboxes.get(mailbox.toLowerCase())?.stats ?? emptyStats());
    const total = emptyStats();
    for (const { stats: s } of this.mailboxes.values()) {
      total.requests += s.requests;
      total.maxPerSecond = Math.max(total.maxPerSecond, s.maxPerSecond);
      total.maxInFlight = Math.max(total.maxInFlight, s.maxInFlight);
      total.rateLimited += s.rateLimited;
      total.rawDownloads += s.rawDownloads;
      total.refreshes += s.refreshes;
      for (const [name, n] of Object.entries(s.commands)) total.commands[name] = (total.commands[name] ?? 0) + n;
    }
    return total;
  }

  /** Zeroes the counters; requests still in flight keep being tracked. */
  reset(): void {
    this.received = 0;
    for (const t of this.mailboxes.values()) {
      t.stats = emptyStats();
      t.window = new SlidingWindow();
    }
  }
}
