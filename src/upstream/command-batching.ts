import { highestLane, laneRank, type Lane } from './rate-limiter';
import type { Command, CommandResult } from './types';

/** Vendor limits (spec section 8). */
export const maxCommandsPerRequest = 20;
export const maxIdsPerGetMessages = 50;

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** One request of at most 20 commands, in a lane; results in command order. */
export type SendRequest = (commands: Command[], lane: Lane) => Promise<CommandResult[]>;

interface SharedRead {
  commands: Command[];
  lane: Lane;
  resolve(results: CommandResult[]): void;
  reject(err: unknown): void;
}

/**
 * Calls `fn` after the sends that the promise reactions running now queue (setImmediate, see
 * CommandBatcher.run). The outer callback is queued first and runs in the same check phase as
 * those sends, before them; the inner one it queues waits for the next check phase, after them.
 */
function afterSendsQueued(fn: () => void): void {
  setImmediate(() => setImmediate(fn));
}

/**
 * Commands into requests of at most 20. Reads issued in the same turn of the event loop share
 * requests: a sync asks for the next list_threads page and for the messages of the page it
 * just got at the same moment, so both travel in one request instead of two. Commands are
 * packed highest lane first and a request takes the highest lane of its commands, so a click
 * that shares a request with a sync's reads is not queued behind the sync. Writes share
 * requests only with other writes (write-batcher.ts).
 *
 * An answer goes to its first caller at once and to the others after the reads that caller
 * issues in return have been sent. A sync's answer holds the next list page, whose cursor the
 * following request needs, and the messages of the page before, which take a few milliseconds
 * to convert and hand to describing; converted first, they held up the next request, and the
 * vendor's window counts from each request's answer, so every request after it came later too
 * (the first second of a cold sync lost 100-150 ms that way).
 */
export class CommandBatcher {
  private readonly sharedReads: SharedRead[] = [];

  constructor(
    private readonly request: SendRequest,
    private readonly isWrite: (commands: Command[]) => boolean,
  ) {}

  /** The commands' results, in their order. */
  run(commands: Command[], lane: Lane): Promise<CommandResult[]> {
    if (this.isWrite(commands)) return this.send(commands, lane);
    return new Promise((resolve, reject) => {
      if (!this.sharedReads.length) setImmediate(() => this.sendSharedReads());
      this.sharedReads.push({ commands, lane, resolve, reject });
    });
  }

  private sendSharedReads(): void {
    const callers = this.sharedReads.splice(0).sort((a, b) => laneRank(a.lane) - laneRank(b.lane));
    const commands = callers.flatMap((c) => c.commands);
    const lanes = callers.flatMap((c) => c.commands.map(() => c.lane));
    const requests = chunk(commands, maxCommandsPerRequest).map((c, i) =>
      this.request(c, highestLane(lanes.slice(i * maxCommandsPerRequest, (i + 1) * maxCommandsPerRequest))),
    );
    // each caller gets its own results, or the failure of a request that carried its commands
    void Promise.allSettled(requests).then((settled) => {
      let at = 0;
      for (const [i, caller] of callers.entries()) {
        const first = at;
        const deliver = () => this.deliver(caller, settled, first);
        // the first caller goes on at once; the others once the reads it issues in answer have
        // left (see afterSendsQueued): a sync's next list page waits for nobody's processing
        if (i === 0) deliver();
        else afterSendsQueued(deliver);
        at += caller.commands.length;
      }
    });
  }

  /** `caller`'s results, its commands being `at` onwards in the requests' concatenated results. */
  private deliver(caller: SharedRead, settled: PromiseSettledResult<CommandResult[]>[], at: number): void {
    const first = Math.floor(at / maxCommandsPerRequest);
    const mine = settled.slice(first, Math.floor((at + caller.commands.length - 1) / maxCommandsPerRequest) + 1);
    const failed = mine.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) caller.reject(failed.reason);
    else {
      const offset = at - first * maxCommandsPerRequest;
      caller.resolve(
        mine
          .flatMap((r) => (r as PromiseFulfilledResult<CommandResult[]>).value)
          .slice(offset, offset + caller.commands.length),
      );
    }
  }

  private async send(commands: Command[], lane: Lane): Promise<CommandResult[]> {
    const parts = await Promise.all(chunk(commands, maxCommandsPerRequest).map((c) => this.request(c, lane)));
    return parts.flat();
  }
}
