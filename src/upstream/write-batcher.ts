import type { Lane } from './rate-limiter';
import { highestLane } from './rate-limiter';
import type { Command, CommandResult } from './types';

interface Unit {
  commands: Command[];
  lane: Lane;
  resolve(results: CommandResult[]): void;
  reject(err: unknown): void;
}

/**
 * Writes of many clients share requests when they would otherwise wait: at most
 * `maxOutstanding` write requests are queued in the gate or on the wire, and writes issued
 * meanwhile ride together in the next request, up to `maxCommands` commands, in the order they
 * were issued. A lone write goes at once, so sharing only ever replaces waiting. A unit (one
 * caller's commands, at most `maxCommands`) is never split; every unit of a request gets that
 * request's results for its commands, or its failure (each caller then settles its own ids:
 * read back after a lost answer, repeated only after proof nothing happened).
 */
export class WriteBatcher {
  private readonly pending: Unit[] = [];
  private outstanding = 0;

  constructor(
    private readonly send: (commands: Command[], lane: Lane) => Promise<CommandResult[]>,
    private readonly maxCommands: number,
    private readonly maxOutstanding: number,
  ) {}

  submit(commands: Command[], lane: Lane): Promise<CommandResult[]> {
    if (commands.length > this.maxCommands) throw new Error(`a write unit holds at most ${this.maxCommands} commands`);
    return new Promise((resolve, reject) => {
      this.pending.push({ commands, lane, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.outstanding < this.maxOutstanding && this.pending.length) {
      const units: Unit[] = [];
      let size = 0;
      while (this.pending.length && size + this.pending[0].commands.length <= this.maxCommands) {
        const unit = this.pending.shift()!;
        units.push(unit);
        size += unit.commands.length;
      }
      this.outstanding++;
      const request = this.send(
        units.flatMap((u) => u.commands),
        highestLane(units.map((u) => u.lane)),
      );
      request.then(
        (results) => {
          let at = 0;
          for (const u of units) {
            u.resolve(results.slice(at, at + u.commands.length));
            at += u.commands.length;
          }
        },
        (err) => {
          for (const u of units) u.reject(err);
        },
      );
      request
        .catch(() => undefined)
        .finally(() => {
          this.outstanding--;
          this.pump();
        });
    }
  }
}
