/** A clock that moves only when a test moves it, so time rules are checked without waiting or racing. */
export class ManualClock {
  private ms: number;

  constructor(start = 0) {
    this.ms = start;
  }

  readonly now = (): number => this.ms;

  advance(ms: number): void {
    this.ms += ms;
  }
}
