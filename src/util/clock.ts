import { performance } from 'node:perf_hooks';

/**
 * Monotonic time and timers, injected so that code which waits (the request gate) can be
 * driven by a test's own clock instead of the machine's speed.
 */
export interface Clock {
  /** Milliseconds on a monotonic scale (only differences mean anything). */
  now(): number;
  /** Calls `fn` once after `ms`; the returned function cancels it. */
  after(ms: number, fn: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  after(ms, fn) {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
};

/** Real timers that do not keep the process alive: for ends of idle resources, no reason to stay. */
export const unrefClock: Clock = {
  now: () => performance.now(),
  after(ms, fn) {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};
