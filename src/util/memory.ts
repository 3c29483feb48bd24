import v8 from 'node:v8';

/**
 * How far V8 lets a heap grow past what survived its last full collection: 20%, instead of
 * V8's dynamic factor (up to 4x for small heaps). A sync promotes every fetched message body
 * to the old generation (each waits in a batch for its description longer than a young
 * collection takes), where it dies; with V8's factor that garbage piled up to a main heap of
 * 150 MB and describe-worker heaps of 55 MB while under 100 MB of it was alive, and a
 * 100,000-message sync peaked at 293-302 MB RSS. With 20% it peaked at 238 MB, at the same
 * sync time (bench, the same loaded machine, runs side by side). Set for the whole process:
 * V8's flags are shared by the main thread and every worker thread, and V8 reads this one each
 * time it sets a heap's next limit, so setting it at start is as good as the command line.
 */
export function boundHeapGrowth(): void {
  v8.setFlagsFromString('--heap-growing-percent=20');
}

/**
 * glibc's allocator settings the daemon starts with (the Dockerfile's ENV, the bin script's
 * shebang, the systemd unit's Environment; they are read before the first allocation, so they
 * cannot be set from here). One arena: what the describe workers and V8's compiler threads
 * allocate and free during a large sync goes back to the arena the main thread reuses, where
 * with two it stayed resident in the second one in about half of the runs (a 100,000-message
 * sync rested at 196-212 MB with 2, 32-35 MB of it in the second arena, and at 179-190 MB with 1,
 * six runs each, 2026-11-27). A fixed trim threshold: V8 and node free large buffers (message
 * bodies, answers) whose size would otherwise raise glibc's threshold for giving the top of the
 * heap back to up to 64 MiB; with 128 KiB the main arena rested 7-15 MB smaller. The cold
 * 10,041-message sync took the same CPU and time with them (three runs each, taking turns).
 */
export const allocatorEnvironment = { MALLOC_ARENA_MAX: '1', MALLOC_TRIM_THRESHOLD_: '131072' } as const;

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
