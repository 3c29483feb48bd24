import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * A full garbage collection, for the end of a job that produced a lot of garbage (the first
 * sync of a large folder). V8 collects old objects lazily and keeps the pages it grew into for
 * a while, so after ingesting 100,000 messages the daemon would otherwise stay 50-100 MB above
 * what it holds, by a different amount each time. The collector is reached the documented way
 * (the --expose-gc flag, set at run time as jest's leak detector does), here only.
 */
let collect: (() => void) | undefined;

export function collectGarbage(): void {
  if (!collect) {
    v8.setFlagsFromString('--expose-gc');
    collect = vm.runInNewContext('gc') as () => void;
  }
  collect();
}
