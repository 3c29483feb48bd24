import type { NodeHealth } from '../store/state-store';
import type { AccountActivity } from './activity';
import type { TokenState } from './token-state';

/**
 * `/readyz`: every account has a usable token (valid, or refreshable with a live refresh
 * token), the vendor answered it within `staleAfterMs`, and no folder has been failing or
 * syncing for longer than that. An account nobody used lately is asked something cheap
 * (list_folders) before it is judged, so an idle sidecar stays ready without polling. A node
 * of several is ready only while the shared store answers its looks: otherwise it cannot
 * confirm its leases, and serves nothing it could store.
 */

export interface AccountReadiness {
  mailbox: string;
  ready: boolean;
  problems: string[];
}

export interface ReadinessReport {
  ready: boolean;
  /** Several nodes: whether the shared store answered this node's last look. */
  store?: { up: boolean };
  accounts: AccountReadiness[];
}

export interface ReadinessDeps {
  mailboxes(): string[];
  activity: AccountActivity;
  token(mailbox: string): TokenState;
  staleAfterMs(): number;
  /** Asks the vendor something cheap for the mailbox; the answer lands in `activity`. */
  probe(mailbox: string): Promise<void>;
  /** A node of several (PostgreSQL); null alone. */
  node?: NodeHealth | null;
}

/** A stale account is asked again at most this often, however often the probe runs. */
const probeEveryMs = 30_000;
/** A probe answer is waited for this long; a slower one counts at the next check. */
const probeWaitMs = 3_000;

export class Readiness {
  private readonly probedAt = new Map<string, number>();

  constructor(private readonly deps: ReadinessDeps) {}

  async check(): Promise<ReadinessReport> {
    const mailboxes = this.deps.mailboxes();
    await Promise.all(mailboxes.map((m) => this.refreshIfStale(m)));
    const accounts = mailboxes.map((m) => this.judge(m));
    const ready = accounts.every((a) => a.ready);
    const node = this.deps.node;
    if (!node) return { ready, accounts };
    const up = node.storeUp();
    return { ready: ready && up, store: { up }, accounts };
  }

  private stale(at: number | null): boolean {
    return at === null || this.deps.activity.now() - at > this.deps.staleAfterMs();
  }

  private async refreshIfStale(mailbox: string): Promise<void> {
    const now = this.deps.activity.now();
    if (!this.stale(this.deps.activity.of(mailbox).lastVendorSuccessAt)) return;
    if (this.deps.token(mailbox).problem) return;
    if (now - (this.probedAt.get(mailbox) ?? Number.NEGATIVE_INFINITY) < probeEveryMs) return;
    this.probedAt.set(mailbox, now);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.deps.probe(mailbox).catch(() => undefined),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, probeWaitMs);
      }),
    ]);
    clearTimeout(timer);
  }

  private judge(mailbox: string): AccountReadiness {
    const problems: string[] = [];
    const token = this.deps.token(mailbox);
    if (token.problem) problems.push(`token: ${token.problem}`);
    const activity = this.deps.activity.of(mailbox);
    if (!token.problem && this.stale(activity.lastVendorSuccessAt)) {
      const since =
        activity.lastVendorSuccessAt === null ? 'since start' : `since ${iso(activity.lastVendorSuccessAt)}`;
      problems.push(
        `vendor: no answer ${since}${activity.lastVendorError ? ` (last error: ${activity.lastVendorError})` : ''}`,
      );
    }
    for (const [path, f] of activity.folders) {
      if (f.failingSince !== null && this.stale(f.failingSince))
        problems.push(`folder ${path}: syncs failing since ${iso(f.failingSince)} (${f.lastError})`);
      else if (f.runningSince !== null && this.stale(f.runningSince))
        problems.push(`folder ${path}: one sync running since ${iso(f.runningSince)}`);
    }
    return { mailbox, ready: problems.length === 0, problems };
  }
}

const iso = (ms: number) => new Date(ms).toISOString();
