import os from 'node:os';
import { type Config, loadConfig } from './config';
import type { Logger } from './log';
import { LoginGuard } from './auth/login-guard';
import { AccountRegistry } from './domain/account-registry';
import { vendorConnectors } from './upstream/vendor-connector';
import { vendorQuarantine } from './upstream/vendor-submission';
import { Quarantine } from './domain/quarantine';
import { storeCheckedWrites } from './domain/store-checked-writes';
import type { MailboxPoller } from './domain/poller';
import { BridgedAccounts } from './bridged-accounts';
import { startImapServer } from './imap/server';
import { type AccountId, accountId } from './model/account-id';
import { ChangeJournal } from './domain/change-journal';
import { accountDomains, clientServers, thunderbirdAutoconfig } from './client-config';
import { AccountActivity } from './ops/activity';
import type { DaemonTokenCheck } from './doctor';
import { startControlSocket } from './ops/control-socket';
import { startOpsListener } from './ops/http-listener';
import { BridgeMetrics } from './ops/metrics';
import { opsObservers } from './ops/observers';
import { Readiness } from './ops/readiness';
import { resyncMailbox } from './ops/resync';
import { buildStatus } from './ops/status';
import { tokenState } from './ops/token-state';
import { planReload } from './reload-plan';
import { hopKey } from './imap/node-hop';
import { mailboxMoving } from './imap/imap-error';
import { createSmtpServer } from './smtp/server';
import { ensureStateDir } from './state-dir';
import type { TokenVault } from './store';
import { importInitialTokens } from './store/secrets';
import { openStateStore } from './store/open-state';
import { enforceStatePermissions } from './store/state-permissions';
import { loadOrCreateTls } from './tls';
import { createVendorClient } from './upstream/vendor-client';
import { vendorLimits } from './upstream/rate-limiter';
import { takeVendorHandover } from './vendor-handover';
import type { Clock } from './util/clock';

export interface RunningBridge {
  ports: { imap: number; imaps: number | null; smtp: number; smtps: number | null; ops: number | null };
  /** The control socket `status`, `resync` and `reload` talk to, or null when it could not be made. */
  controlSocket: string | null;
  accounts: AccountRegistry;
  pollers: MailboxPoller[];
  secrets: TokenVault;
  /** Re-reads the config file and the stored accounts (SIGHUP, `mailbridge reload`). */
  reload(): Promise<ReloadResult>;
  close(): Promise<void>;
}

export interface ReloadResult {
  added: string[];
  removed: string[];
  applied: string[];
  /** Changed fields that only a restart applies. */
  needsRestart: string[];
}

export interface BridgeOptions {
  /** Clock of the readiness and status records (tests move it). */
  now?: () => number;
  /** What the vendor client's gate, Retry-After pauses and backoff wait on (tests move it). */
  vendorClock?: Clock;
  /** This node's monotonic clock, on which its PostgreSQL leases run out (tests move it). */
  leaseClock?: () => number;
  /** How a reload reads the config again; by default the file it came from, with the environment. */
  loadConfig?: () => Config;
}

/** The accounts to serve: the configured ones and every one `account add` stored. */
function wantedMailboxes(config: Config, secrets: TokenVault): AccountId[] {
  return [...new Set([...config.accounts.map((a) => a.mailbox), ...secrets.mailboxes().map(accountId)])];
}

/** Where the other nodes reach this one's listeners: the listen host, or this machine's name for a wildcard. */
function advertisedHost(config: Config): string {
  const host = config.state.advertiseHost ?? config.listen.host;
  if (host === '0.0.0.0' || host === '::') return os.hostname();
  return host.includes(':') ? `[${host}]` : host;
}

/** Starts everything the `start` command runs: state, vendor client, IMAP, SMTP, pollers, ops. */
export async function startBridge(initial: Config, logger: Logger, opts: BridgeOptions = {}): Promise<RunningBridge> {
  let config = initial;
  ensureStateDir(config.stateDir);
  // what an earlier run or the user left, before anything is read from it
  enforceStatePermissions(config.stateDir);
  const state = await openStateStore(config, { node: logger, leaseClock: opts.leaseClock });
  // on PostgreSQL another node may serve a mailbox: its clients are forwarded there
  const forwarding = config.state.postgres !== null;
  const { secrets } = state;
  await importInitialTokens(config, secrets);
  const activity = new AccountActivity(opts.now);
  const token = (mailbox: string) => tokenState(mailbox, secrets.get(mailbox), activity.now());
  // the servers exist only later; the gauges read them through these
  let sessions = () => ({ imap: 0, smtp: 0 });
  let accounts: BridgedAccounts | null = null;
  const mailboxes = () => accounts?.mailboxes() ?? [];
  const metrics = new BridgeMetrics({
    mailboxes,
    activity,
    token,
    sessions: () => sessions(),
    quarantine: () => quarantine.countByState(),
    node: state.node,
  });
  const observers = opsObservers(metrics, activity);
  // what the last run may have left in the vendor's window holds this run's first requests
  const handover = takeVendorHandover(config.stateDir, vendorLimits.windowMs);
  if (handover.holdMs > 0)
    logger.info({ holdMs: handover.holdMs }, "vendor requests wait for the last run's rate window");
  // a vendor write is sent only while this node still holds the mailbox, on its own clock
  const vendor = createVendorClient(
    config,
    secrets,
    logger,
    observers.vendor,
    (mailbox) => state.assertHeld(mailbox),
    opts.vendorClock,
    handover.holdMs,
  );
  const tls = await loadOrCreateTls(config.tls, config.stateDir);
  // and what opening the store created under the process umask (database, WAL)
  enforceStatePermissions(config.stateDir);
  const notifier = new ChangeJournal();
  const logins = new LoginGuard({ freeFailures: config.limits.freeLoginFailures }, logger);
  const registry = new AccountRegistry(secrets);
  const quarantine = new Quarantine({
    log: state.quarantine,
    vendor: vendorQuarantine(vendor),
    now: () => activity.now(),
    onHeld: (mailbox, held) => registry.get(mailbox)?.holdQuarantined(held),
  });
  // a vendor write goes out only when its outcome can be stored (the store reachable, the mailbox ours)
  const vendorConnector = vendorConnectors(vendor, config, logger);
  const connector = (mailbox: string) => storeCheckedWrites(vendorConnector(mailbox), () => state.writable(mailbox));
  accounts = new BridgedAccounts(
    {
      registry,
      vendor: connector,
      store: state.mail,
      notifier,
      logger,
      syncObserver: observers.sync,
      quarantine,
    },
    config,
  );
  const bridged = accounts;

  const imap = await startImapServer({
    host: config.listen.host,
    port: config.listen.imapPort,
    securePort: config.listen.imapsPort,
    tls,
    accounts: registry,
    notifier,
    logger,
    maxMessageBytes: config.maxMessageBytes,
    compression: config.imapCompression,
    limits: config.limits,
    logins,
    onCommand: (command, seconds, ok) => metrics.imapCommand(command, seconds, ok),
    owners: forwarding
      ? {
          route: async (username, password) => {
            const mailbox = username.trim();
            if (!(await secrets.verifyBridgePassword(mailbox, password))) return null;
            const owner = await state.ownership.ownerOf(mailbox);
            if (!owner?.imap) return 'unavailable';
            metrics.forwarded('imap');
            return { address: owner.imap, mailbox };
          },
          // every node derives the same key from the state key, which config requires with postgres
          hop: { certificate: tls.cert, key: hopKey(config.state.secretKey ?? '') },
        }
      : undefined,
  });
  const smtpServer = createSmtpServer({
    config,
    connector,
    secrets,
    logins,
    quarantine,
    committed: (mailbox) => state.committed(mailbox),
    writable: (mailbox) => state.writable(mailbox),
    logger,
    tls,
    onSubmitted: ({ mailbox, messageId }) => registry.get(mailbox)?.recordSubmission(messageId),
    owners: forwarding
      ? {
          route: async (mailbox) => {
            if (registry.get(mailbox)) return 'here';
            const owner = (await state.ownership.ownerOf(mailbox))?.smtp ?? null;
            if (owner) metrics.forwarded('smtp');
            return owner;
          },
          certificate: tls.cert,
        }
      : undefined,
    onOutcome: (outcome) => metrics.smtpSubmission(outcome),
  });
  const smtp = await smtpServer.listen();
  const reachable = advertisedHost(config);
  state.ownership.advertise({ imap: `${reachable}:${imap.port}`, smtp: `${reachable}:${smtp.port}` });
  await state.ownership.start(() => wantedMailboxes(config, secrets), {
    gained: (mailbox) => bridged.start(accountId(mailbox)),
    lost: async (mailbox, change) => {
      await bridged.stop(accountId(mailbox));
      imap.disconnect(mailbox, change === 'given up' ? 'This account is no longer bridged' : mailboxMoving);
      activity.forget(mailbox);
    },
  });
  sessions = () => ({ imap: imap.sessions(), smtp: smtpServer.sessions() });

  const readiness = new Readiness({
    mailboxes,
    activity,
    token,
    staleAfterMs: () => config.ops.staleAfterSeconds * 1000,
    probe: (mailbox) => vendor.mailbox(mailbox).verify(),
    node: state.node,
  });
  const ops =
    config.ops.port === null
      ? null
      : await startOpsListener({
          host: config.ops.host,
          port: config.ops.port,
          metrics,
          readiness,
          listeners: () => ({ imap: imap.listening(), smtp: smtpServer.listening() }),
          autoconfig: () => thunderbirdAutoconfig(clientServers(config), accountDomains(mailboxes())),
          logger,
        });

  const status = () =>
    buildStatus({
      views: () => registry.all(),
      activity,
      token,
      quarantine: () => quarantine.list(),
      node: forwarding ? config.state.node : null,
    });

  const reload = async (): Promise<ReloadResult> => {
    // a config built in code (tests, no file) keeps its settings; the stored accounts are read again
    const next = opts.loadConfig?.() ?? (config.configFile ? loadConfig(config.configFile) : config);
    const plan = planReload(config, next);
    config = next;
    await importInitialTokens(next, secrets);
    const wanted = wantedMailboxes(next, secrets);
    const before = bridged.mailboxes();
    const removed = before.filter((m) => !wanted.includes(m));
    if (plan.applied.includes('pollIntervalSeconds') || plan.applied.includes('fullSyncEveryPolls'))
      await bridged.repoll(next);
    // stops the removed accounts; serves the added ones (on PostgreSQL, those this node may own)
    await state.ownership.review();
    // what this node serves now and did not: on PostgreSQL, other nodes serve the rest
    const added = bridged.mailboxes().filter((m) => !before.includes(m));
    imap.setMaxMessageBytes(next.maxMessageBytes);
    smtpServer.setMaxMessageBytes(next.maxMessageBytes);
    logger.level = next.logLevel;
    const result = { added, removed, applied: plan.applied, needsRestart: plan.needsRestart };
    logger.info(result, 'configuration reloaded');
    return result;
  };

  const control = await startControlSocket(
    config.stateDir,
    {
      'GET /status': async () => ({ status: 200, json: status() }),
      'POST /resync': async (body) => {
        const { mailbox, folder } = body as { mailbox?: unknown; folder?: unknown };
        if (typeof mailbox !== 'string') return { status: 400, json: { error: 'mailbox is required' } };
        const only = typeof folder === 'string' ? folder : undefined;
        return { status: 200, json: await resyncMailbox(registry, mailbox, only, logger) };
      },
      'POST /reload': async () => ({ status: 200, json: await reload() }),
      // `mailbridge doctor` beside the daemon: its question takes a place in the mailbox's window
      'POST /verify': async (body) => {
        const { mailbox } = body as { mailbox?: unknown };
        if (typeof mailbox !== 'string') return { status: 400, json: { error: 'mailbox is required' } };
        let answer: DaemonTokenCheck = { ok: true };
        try {
          await vendor.mailbox(mailbox).verify();
        } catch (err) {
          answer = { ok: false, error: (err as Error).message };
        }
        return { status: 200, json: answer };
      },
    },
    logger,
  );
  logger.info(
    { imap: imap.port, smtp: smtp.port, ops: ops?.port ?? null, accounts: bridged.mailboxes().length },
    'mailbridge started',
  );

  return {
    ports: {
      imap: imap.port,
      imaps: imap.securePort,
      smtp: smtp.port,
      smtps: smtp.securePort ?? null,
      ops: ops?.port ?? null,
    },
    controlSocket: control?.path ?? null,
    accounts: registry,
    get pollers() {
      return bridged.pollers;
    },
    secrets,
    reload,
    close: async () => {
      await control?.close();
      await ops?.close();
      // sessions still at work during the drain need their accounts: those stop after
      await Promise.all([imap.close(), smtpServer.close()]);
      await state.ownership.stop();
      await bridged.stopAll();
      await vendor.close();
      handover.stopped();
      await state.close();
    },
  };
}
