import type { SyncCause, SyncObserver } from '../domain/sync-observer';
import { accountId } from '../model/account-id';

/**
 * What each account did lately, as the daemon saw it: vendor answers, folder syncs and polls,
 * requests waiting at its gate. `status`, `/readyz` and the sync-lag metric read it. Times
 * are epoch milliseconds from the injected clock.
 */

export interface FolderActivity {
  lastSyncAt: number | null;
  lastPollAt: number | null;
  /** Set while the folder's syncs fail: the first failure's time and the latest reason. */
  failingSince: number | null;
  lastError: string | null;
  /** When the sync now running began, or null. */
  runningSince: number | null;
}

export interface MailboxActivity {
  lastVendorSuccessAt: number | null;
  lastVendorFailureAt: number | null;
  lastVendorError: string | null;
  /** Requests waiting at the mailbox's gate. */
  queued: number;
  folders: Map<string, FolderActivity>;
}

export class AccountActivity implements SyncObserver {
  private readonly mailboxes = new Map<string, MailboxActivity>();

  constructor(readonly now: () => number = Date.now) {}

  of(mailbox: string): MailboxActivity {
    const key = accountId(mailbox);
    let entry = this.mailboxes.get(key);
    if (!entry) {
      entry = {
        lastVendorSuccessAt: null,
        lastVendorFailureAt: null,
        lastVendorError: null,
        queued: 0,
        folders: new Map(),
      };
      this.mailboxes.set(key, entry);
    }
    return entry;
  }

  forget(mailbox: string): void {
    this.mailboxes.delete(accountId(mailbox));
  }

  private folder(mailbox: string, path: string): FolderActivity {
    const folders = this.of(mailbox).folders;
    let entry = folders.get(path);
    if (!entry) {
      entry = { lastSyncAt: null, lastPollAt: null, failingSince: null, lastError: null, runningSince: null };
      folders.set(path, entry);
    }
    return entry;
  }

  started(account: string, folder: string): void {
    this.folder(account, folder).runningSince = this.now();
  }

  ended(account: string, folder: string, cause: SyncCause, error: Error | null): void {
    const entry = this.folder(account, folder);
    const at = this.now();
    entry.runningSince = null;
    if (error) {
      entry.failingSince ??= at;
      entry.lastError = error.message;
      return;
    }
    entry.failingSince = null;
    entry.lastError = null;
    entry.lastSyncAt = at;
    if (cause === 'poll') entry.lastPollAt = at;
  }

  vendorResult(mailbox: string, error: Error | null): void {
    const entry = this.of(mailbox);
    if (error) {
      entry.lastVendorFailureAt = this.now();
      entry.lastVendorError = error.message;
    } else entry.lastVendorSuccessAt = this.now();
  }

  queueDepth(mailbox: string, depth: number): void {
    this.of(mailbox).queued = depth;
  }

  /** Seconds since the least recently synced folder of the mailbox was up to date; null before any sync. */
  syncLagSeconds(mailbox: string): number | null {
    const synced = [...this.of(mailbox).folders.values()].flatMap((f) => (f.lastSyncAt === null ? [] : [f.lastSyncAt]));
    return synced.length ? (this.now() - Math.min(...synced)) / 1000 : null;
  }
}
