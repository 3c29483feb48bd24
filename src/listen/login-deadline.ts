/**
 * Disconnects clients that have not logged in within the login timeout: before login a
 * client can do nothing useful, so lingering there only holds a connection slot.
 */
export class LoginDeadlines {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly timeoutMs: number) {}

  /** Calls `expire` after the timeout unless `stop(id)` came first. */
  start(id: string, expire: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(id);
      expire();
    }, this.timeoutMs);
    // a pending deadline alone must not keep a stopping daemon alive
    timer.unref();
    this.timers.set(id, timer);
  }

  stop(id: string): void {
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
  }
}
