import { LRUCache } from 'lru-cache';
import { type Clock, systemClock } from './clock';

/**
 * Failed-login throttle per peer address. A peer's first `freeFailures` failures cost
 * nothing; past them its attempts run one at a time, each after a delay that starts at
 * 100 ms and doubles with every further failure up to 10 s, so one address gets at most
 * 10 tries a second however many connections it opens. Attempts made together while
 * under the limit count as possible failures, so a burst cannot slip past it. A good
 * login clears the count; so do 15 minutes without a failure.
 */

export interface ThrottleOptions {
  freeFailures: number;
  clock?: Clock;
}

export interface Attempt {
  ok: boolean;
  /** Failures counted for the peer after this attempt. */
  failures: number;
  /** Delay this attempt waited for its turn (ms). */
  delayedMs: number;
}

interface PeerState {
  failures: number;
  lastFailureAt: number;
  inFlight: number;
  queued: number;
  /** Settles when every attempt so far is done: queued attempts run in turn, after those. */
  tail: Promise<unknown>;
}

const firstDelayMs = 100;
const maxDelayMs = 10_000;
const forgetAfterMs = 15 * 60 * 1000;

export class LoginThrottle {
  private readonly peers = new LRUCache<string, PeerState>({ max: 10_000 });
  private readonly clock: Clock;

  constructor(private readonly opts: ThrottleOptions) {
    this.clock = opts.clock ?? systemClock;
  }

  /** The wait before an attempt by a peer with `failures` failures. */
  delayFor(failures: number): number {
    if (failures < this.opts.freeFailures) return 0;
    return Math.min(firstDelayMs * 2 ** (failures - this.opts.freeFailures), maxDelayMs);
  }

  async attempt(peer: string, verify: () => Promise<boolean>): Promise<Attempt> {
    const state = this.state(peer);
    if (state.queued === 0 && state.failures + state.inFlight < this.opts.freeFailures) {
      const now = this.run(state, verify, 0);
      // a queued attempt waits for this one too, and then knows whether it failed
      state.tail = Promise.all([state.tail, now.catch(() => undefined)]);
      return now;
    }
    state.queued++;
    const turn = state.tail.then(async () => {
      const delayedMs = this.delayFor(state.failures);
      if (delayedMs > 0) await this.clock.sleep(delayedMs);
      return this.run(state, verify, delayedMs);
    });
    state.tail = turn.catch(() => undefined).finally(() => state.queued--);
    return turn;
  }

  private state(peer: string): PeerState {
    let state = this.peers.get(peer);
    if (state && state.inFlight === 0 && state.queued === 0 && this.clock.now() - state.lastFailureAt > forgetAfterMs)
      state.failures = 0;
    if (!state) {
      state = { failures: 0, lastFailureAt: 0, inFlight: 0, queued: 0, tail: Promise.resolve() };
      this.peers.set(peer, state);
    }
    return state;
  }

  private async run(state: PeerState, verify: () => Promise<boolean>, delayedMs: number): Promise<Attempt> {
    state.inFlight++;
    try {
      const ok = await verify();
      if (ok) state.failures = 0;
      else {
        state.failures++;
        state.lastFailureAt = this.clock.now();
      }
      return { ok, failures: state.failures, delayedMs };
    } finally {
      state.inFlight--;
    }
  }
}
