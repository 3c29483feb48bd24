import v8 from 'node:v8';

/**
 * How much bytecode TurboFan inlines into one optimized function: 300 bytes in all, instead of
 * V8's 920. A fresh daemon compiles its hot code while its first sync runs, on V8's helper
 * threads: on a cold 10,041-message sync those threads spent about 1 s of CPU, two thirds of it
 * in TurboFan (perf, 2026-11-27), a third of the sync's whole CPU, the costliest being a few large
 * functions of describing (header-block.ts's writeHeader, mime-layout.ts, message-keys.ts,
 * compose.ts's options, imap-core's BODYSTRUCTURE), each compiled two or three times as new
 * kinds of message deoptimize it. With less inlined their graphs are smaller and compile
 * faster: a cold sync's CPU per message fell by about a sixth, the helper threads' by a third
 * (docs/benchmarks.md, "Where the time goes").
 * Process-wide, like boundHeapGrowth: describe workers compile under the same limit.
 */
export function boundInlining(): void {
  v8.setFlagsFromString('--max-inlined-bytecode-size-cumulative=300');
}
