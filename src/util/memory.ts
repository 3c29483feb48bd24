/**
 * A full garbage collection, for the end of a job that produced a lot of garbage (the first
 * sync of a large folder, a node loading a large mailbox it takes over). V8 collects old objects lazily and keeps the pages it grew into for
 * a while: after syncing 100,000 messages the daemon rested at 214 and 372 MB without it (two
 * bench runs) against 166-208 MB with it, the target being 300 MB. The collector exists when
 * node starts with --expose-gc, as the Dockerfile's entrypoint and bin/mailbridge.js start it;
 * anywhere else (tests, tsx) this does nothing and V8 collects on its own schedule.
 */
export function collectGarbage(): void {
  globalThis.gc?.();
}

/** A job that handled this many messages (or rows) is followed by a full collection. */
const largeJob = 5000;

export function collectAfter(handled: number): void {
  if (handled >= largeJob) collectGarbage();
}
