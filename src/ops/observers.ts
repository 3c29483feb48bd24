import type { SyncCause, SyncObserver } from '../domain/sync-observer';
import type { VendorObserver } from '../upstream/observer';
import type { AccountActivity } from './activity';
import type { BridgeMetrics } from './metrics';

/** The connector's and the domain's reports, fanned out to the metrics and the activity record. */
export function opsObservers(
  metrics: BridgeMetrics,
  activity: AccountActivity,
): { vendor: VendorObserver; sync: SyncObserver } {
  return {
    vendor: {
      request: (route, outcome, seconds) => metrics.vendorRequest(route, outcome, seconds),
      retry: (reason) => metrics.vendorRetry(reason),
      mailboxResult: (mailbox, error) => activity.vendorResult(mailbox, error),
      gate: (gate) => ({
        onQueue: (depth) => {
          metrics.gateQueued(gate, depth);
          if (gate !== 'key') activity.queueDepth(gate, depth);
        },
        onStart: (waitMs, depth) => {
          metrics.gateStarted(gate, waitMs, depth);
          if (gate !== 'key') activity.queueDepth(gate, depth);
        },
      }),
    },
    sync: {
      started: (account: string, folder: string) => activity.started(account, folder),
      ended: (account: string, folder: string, cause: SyncCause, error: Error | null) => {
        activity.ended(account, folder, cause, error);
        metrics.folderSync(cause, error === null);
      },
    },
  };
}
