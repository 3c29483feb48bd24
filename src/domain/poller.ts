import type { Logger } from '../log';
import type { AccountView } from './account-view';

/**
 * One poller per mailbox, however many IMAP sessions are connected: it keeps every folder
 * that was opened since start fresh. Most ticks are incremental (a listMessages page and a
 * flag refresh of recent mail); every `fullEvery`-th tick, and the first one, is a full
 * reconciliation that also sees removals and flag changes of old mail.
 */
export class MailboxPoller {
  private timer: NodeJS.Timeout | null = null;
  private ticks = 0;
  private running: Promise<void> | null = null;

  constructor(
    private readonly view: AccountView,
    private readonly intervalMs: number,
    private readonly fullEvery: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
  }

  /** Runs one poll now (also used by tests); overlapping ticks are skipped, not queued. */
  tick(): Promise<void> {
    if (this.running) return this.running;
    const mode = this.ticks++ % this.fullEvery === 0 ? 'full' : 'incremental';
    this.running = (async () => {
      let failed = false;
      this.view.reconcileLocal();
      for (const folder of this.view.activeFolders()) {
        try {
          await this.view.syncFolder(folder, mode, 'poll');
        } catch (err) {
          failed = true;
          this.logger.warn(
            { account: this.view.account, folder: folder.path, mode, err: (err as Error).message },
            'poll failed; will retry next interval',
          );
        }
      }
      if (mode === 'full' && !failed) {
        const pruned = this.view.pruneCache();
        if (pruned)
          this.logger.debug({ account: this.view.account, pruned }, 'cached messages no folder holds dropped');
      }
      // a poll is over once what it stored is durable, and so published to the sessions
      await this.view
        .committed()
        .catch((err: unknown) =>
          this.logger.warn({ account: this.view.account, err: (err as Error).message }, 'poll not stored yet'),
        );
    })().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
