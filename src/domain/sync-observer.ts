/** Who asked for a folder sync: a mail client opening it, the poller, or an operator's repair. */
export type SyncCause = 'client' | 'poll' | 'repair';

/** Told about every folder sync of an account (status, readiness and metrics listen). */
export interface SyncObserver {
  started(account: string, folder: string, cause: SyncCause): void;
  /** `error` is null when the folder is now up to date with the vendor. */
  ended(account: string, folder: string, cause: SyncCause, error: Error | null): void;
}
