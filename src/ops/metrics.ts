import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { version } from '../version';
import type { SubmissionOutcome } from '../smtp/deliver';
import type { NodeHealth } from '../store/state-store';
import type { RequestOutcome, RetryReason } from '../upstream/observer';
import type { AccountActivity } from './activity';
import type { TokenState } from './token-state';

/**
 * Every Prometheus metric of the daemon, in one registry per running bridge. Counters and
 * histograms are fed by the observers (./observers.ts); gauges of state are read when
 * scraped. Labels stay low-cardinality: vendor route paths, mailbox addresses, IMAP
 * command names, fixed outcome words; never message or quarantine ids.
 */

/** What the gauges read at scrape time. */
export interface MetricSources {
  mailboxes(): string[];
  activity: AccountActivity;
  token(mailbox: string): TokenState;
  sessions(): { imap: number; smtp: number };
  /** Quarantine records by state (a held record past its 3 hours counts as expired). */
  quarantine(): Record<string, number>;
  /** A node of several (PostgreSQL): its store and leases; null alone. */
  node?: NodeHealth | null;
}

const latencyBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class BridgeMetrics {
  readonly registry = new Registry();
  private readonly vendorRequests: Counter<'route' | 'outcome'>;
  private readonly vendorDuration: Histogram<'route'>;
  private readonly vendorRateLimited: Counter<'route'>;
  private readonly vendorRetries: Counter<'reason'>;
  private readonly gateQueue: Gauge<'gate'>;
  private readonly gateWait: Histogram<'gate'>;
  private readonly imapCommands: Histogram<'command' | 'outcome'>;
  private readonly smtpSubmissions: Counter<'outcome'>;
  private readonly folderSyncs: Counter<'cause' | 'outcome'>;
  private readonly handOvers: Counter<'protocol'>;

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.vendorRequests = new Counter({
      name: 'mailbridge_vendor_requests_total',
      help: 'HTTP requests to the vendor by route and outcome',
      labelNames: ['route', 'outcome'],
      registers,
    });
    this.vendorDuration = new Histogram({
      name: 'mailbridge_vendor_request_duration_seconds',
      help: 'Time from sending a vendor request until its answer began',
      labelNames: ['route'],
      buckets: latencyBuckets,
      registers,
    });
    this.vendorRateLimited = new Counter({
      name: 'mailbridge_vendor_rate_limited_total',
      help: 'Vendor answers with HTTP 429',
      labelNames: ['route'],
      registers,
    });
    this.vendorRetries = new Counter({
      name: 'mailbridge_vendor_retries_total',
      help: 'Vendor requests sent again, by reason',
      labelNames: ['reason'],
      registers,
    });
    this.gateQueue = new Gauge({
      name: 'mailbridge_gate_queue_depth',
      help: 'Requests waiting at a request gate (one per mailbox, "key" for the send-and-manage routes)',
      labelNames: ['gate'],
      registers,
    });
    this.gateWait = new Histogram({
      name: 'mailbridge_gate_wait_seconds',
      help: 'Time a request waited at its gate for a slot',
      labelNames: ['gate'],
      buckets: latencyBuckets,
      registers,
    });
    this.imapCommands = new Histogram({
      name: 'mailbridge_imap_command_duration_seconds',
      help: 'Time the bridge spent answering an IMAP command, by command',
      labelNames: ['command', 'outcome'],
      buckets: latencyBuckets,
      registers,
    });
    this.smtpSubmissions = new Counter({
      name: 'mailbridge_smtp_submissions_total',
      help: 'SMTP submissions by outcome (sent, held by the spam filter, partial, deferred 4xx, refused 5xx)',
      labelNames: ['outcome'],
      registers,
    });
    this.folderSyncs = new Counter({
      name: 'mailbridge_folder_syncs_total',
      help: 'Folder syncs by cause (client, poll, repair) and outcome',
      labelNames: ['cause', 'outcome'],
      registers,
    });
    this.handOvers = new Counter({
      name: 'mailbridge_forwarded_total',
      help: 'Client sessions (imap) and submissions (smtp) this node passed on to the node serving the mailbox',
      labelNames: ['protocol'],
      registers,
    });
    // constant 1: which version runs, for dashboards and alerts on a mixed or stale fleet
    new Gauge({
      name: 'mailbridge_build_info',
      help: 'The running mailbridge: version and Node.js version (always 1)',
      labelNames: ['version', 'node'],
      registers,
    }).set({ version, node: process.versions.node }, 1);
    this.stateGauges(sources, registers);
    if (sources.node) this.nodeGauges(sources.node, registers);
  }

  private nodeGauges(node: NodeHealth, registers: Registry[]): void {
    const gauge = (name: string, help: string, value: () => number | null) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          const v = value();
          if (v === null) this.reset();
          else this.set(v);
        },
      });
    gauge('mailbridge_store_up', '1 while the shared PostgreSQL answered this node’s last look', () =>
      node.storeUp() ? 1 : 0,
    );
    gauge('mailbridge_store_round_trip_seconds', 'How long this node’s last lease renewal took', () =>
      node.storeRoundTripSeconds(),
    );
    gauge('mailbridge_leases_held', 'Mailboxes whose lease this node holds', () => node.leasesHeld());
    const changes: Counter<'change'> = new Counter({
      name: 'mailbridge_lease_changes_total',
      help: 'Leases this node gained, lost, handed over or gave up',
      labelNames: ['change'],
      registers,
      collect: () => {
        changes.reset();
        for (const [change, n] of node.leaseChanges()) changes.inc({ change }, n);
      },
    });
  }

  private stateGauges(sources: MetricSources, registers: Registry[]): void {
    const perMailbox = (name: string, help: string, value: (mailbox: string) => number | null) => {
      const gauge: Gauge<'mailbox'> = new Gauge({
        name,
        help,
        labelNames: ['mailbox'],
        registers,
        collect: () => {
          gauge.reset();
          for (const mailbox of sources.mailboxes()) {
            const v = value(mailbox);
            if (v !== null) gauge.set({ mailbox }, v);
          }
        },
      });
    };
    perMailbox(
      'mailbridge_sync_lag_seconds',
      'Seconds since the least recently synced open folder of the mailbox was up to date',
      (m) => sources.activity.syncLagSeconds(m),
    );
    perMailbox(
      'mailbridge_vendor_last_success_timestamp_seconds',
      'When the vendor last answered a request of the mailbox',
      (m) => {
        const at = sources.activity.of(m).lastVendorSuccessAt;
        return at === null ? null : at / 1000;
      },
    );
    perMailbox('mailbridge_token_needs_new', '1 when the mailbox needs a new token pair (account add)', (m) =>
      ['needs_new_tokens', 'missing'].includes(sources.token(m).condition) ? 1 : 0,
    );
    const expiry: Gauge<'mailbox' | 'token'> = new Gauge({
      name: 'mailbridge_token_expiry_timestamp_seconds',
      help: 'When the stored access and refresh tokens expire (from when the pair was stored and the documented lifetimes)',
      labelNames: ['mailbox', 'token'],
      registers,
      collect: () => {
        expiry.reset();
        for (const mailbox of sources.mailboxes()) {
          const t = sources.token(mailbox);
          if (t.accessExpiresAt !== null) expiry.set({ mailbox, token: 'access' }, t.accessExpiresAt / 1000);
          if (t.refreshExpiresAt !== null) expiry.set({ mailbox, token: 'refresh' }, t.refreshExpiresAt / 1000);
        }
      },
    });
    const sessions: Gauge<'protocol'> = new Gauge({
      name: 'mailbridge_sessions',
      help: 'Open client connections by protocol',
      labelNames: ['protocol'],
      registers,
      collect: () => {
        for (const [protocol, n] of Object.entries(sources.sessions())) sessions.set({ protocol }, n);
      },
    });
    const quarantine: Gauge<'status'> = new Gauge({
      name: 'mailbridge_quarantine_records',
      help: 'Submissions held by the vendor spam filter, by state',
      labelNames: ['status'],
      registers,
      collect: () => {
        quarantine.reset();
        for (const [status, n] of Object.entries(sources.quarantine())) quarantine.set({ status }, n);
      },
    });
  }

  vendorRequest(route: string, outcome: RequestOutcome, seconds: number): void {
    this.vendorRequests.inc({ route, outcome });
    this.vendorDuration.observe({ route }, seconds);
    if (outcome === 'rate_limited') this.vendorRateLimited.inc({ route });
  }

  vendorRetry(reason: RetryReason): void {
    this.vendorRetries.inc({ reason });
  }

  gateQueued(gate: string, depth: number): void {
    this.gateQueue.set({ gate }, depth);
  }

  gateStarted(gate: string, waitMs: number, depth: number): void {
    this.gateQueue.set({ gate }, depth);
    this.gateWait.observe({ gate }, waitMs / 1000);
  }

  imapCommand(command: string, seconds: number, ok: boolean): void {
    this.imapCommands.observe({ command, outcome: ok ? 'ok' : 'no' }, seconds);
  }

  smtpSubmission(outcome: SubmissionOutcome): void {
    this.smtpSubmissions.inc({ outcome });
  }

  /** A session or submission passed on to the node that serves its mailbox. */
  forwarded(protocol: 'imap' | 'smtp'): void {
    this.handOvers.inc({ protocol });
  }

  folderSync(cause: string, ok: boolean): void {
    this.folderSyncs.inc({ cause, outcome: ok ? 'ok' : 'failed' });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
