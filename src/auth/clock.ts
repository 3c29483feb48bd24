/** Time as the login throttle sees it; tests pass a fake one instead of asserting on elapsed time. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  // a login waiting for its turn must not keep a stopping daemon alive
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref()),
};
