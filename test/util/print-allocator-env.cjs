// preloaded by memory.test.ts into the bin script's node: prints the allocator variables it was started with
process.stdout.write(
  `${JSON.stringify({ MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX, MALLOC_TRIM_THRESHOLD_: process.env.MALLOC_TRIM_THRESHOLD_ })}\n`,
);
