import path from 'node:path';
import type { Config } from './config';
import type { Logger } from './log';
import type { AccountRegistry } from './domain/account-registry';
import type { Connector } from './domain/connector';
import { AccountView } from './domain/account-view';
import { MailboxPoller } from './domain/poller';
import type { QuarantineAccess } from './domain/quarantine-folder';
import type { SyncObserver } from './domain/sync-observer';
import type { ChangeJournal } from './domain/change-journal';
import type { AccountId } from './model/account-id';
import type { MailState } from './store';

export interface BridgedAccountsDeps {
  registry: AccountRegistry;
  /** The mailbox's connector to the vendor, what the domain reads and writes through. */
  vendor: (mailbox: string) => Connector;
  store: MailState;
  notifier: ChangeJournal;
  logger: Logger;
  syncObserver: SyncObserver;
  /** Held submissions, shown as each account's Quarantine mailbox. */
  quarantine: QuarantineAccess;
}

/**
 * The accounts the daemon serves, each an account view and its poller. Accounts start and
 * stop one at a time, so a reload touches only the accounts it adds or removes.
 */
export class BridgedAccounts {
  private readonly running = new Map<AccountId, { view: AccountView; poller: MailboxPoller }>();

  constructor(
    private readonly deps: BridgedAccountsDeps,
    private config: Config,
  ) {}

  mailboxes(): AccountId[] {
    return [...this.running.values()].map((r) => r.view.account);
  }

  get pollers(): MailboxPoller[] {
    return [...this.running.values()].map((r) => r.poller);
  }

  has(mailbox: AccountId): boolean {
    return this.running.has(mailbox);
  }

  start(mailbox: AccountId): void {
    if (this.has(mailbox)) return;
    const { deps, config } = this;
    const view = new AccountView({
      account: mailbox,
      vendor: deps.vendor(mailbox),
      store: deps.store,
      logger: deps.logger,
      attachmentCacheDir: path.join(config.stateDir, 'attachments'),
      changes: deps.notifier,
      labelsRoot: config.labelsFolder,
      copyToFolder: config.copyToFolder,
      freshnessMs: config.freshnessSeconds * 1000,
      syncObserver: deps.syncObserver,
      quarantine: deps.quarantine,
    });
    deps.registry.add(view);
    const poller = this.poller(view);
    poller.start();
    this.running.set(mailbox, { view, poller });
  }

  private poller(view: AccountView): MailboxPoller {
    return new MailboxPoller(
      view,
      this.config.pollIntervalSeconds * 1000,
      this.config.fullSyncEveryPolls,
      this.deps.logger,
    );
  }

  async stop(mailbox: AccountId): Promise<void> {
    const entry = this.running.get(mailbox);
    if (!entry) return;
    this.running.delete(mailbox);
    this.deps.registry.remove(mailbox);
    await entry.poller.stop();
  }

  /** New polling settings: each poller is replaced once its running poll ends. */
  async repoll(config: Config): Promise<void> {
    this.config = config;
    await Promise.all(
      [...this.running.values()].map(async (entry) => {
        await entry.poller.stop();
        entry.poller = this.poller(entry.view);
        entry.poller.start();
      }),
    );
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.mailboxes().map((m) => this.stop(m)));
  }
}
