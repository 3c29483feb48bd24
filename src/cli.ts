import fs from 'node:fs';
import { Argument, Command, InvalidArgumentError, Option } from 'commander';
import { ConfigError, loadConfig, loadListenerSettings, type Config } from './config';
import { createLogger, logStream } from './log';
import { startBridge } from './bridge';
import { runDemo } from './demo';
import { startSandbox } from './sandbox';
import { type DaemonTokenCheck, runDoctor, type TokenCheck } from './doctor';
import { healthy } from './healthcheck';
import { listenerLines } from './listener-lines';
import { callDaemon, NoDaemonError } from './ops/control-client';
import { formatStatus, type StatusReport } from './ops/status';
import { formatCluster, readCluster } from './ops/cluster-status';
import type { ReloadResult } from './bridge';
import type { ResyncResult } from './ops/resync';
import type { StateStore, TokenVault } from './store';
import { migrateSqliteToPg } from './store/migrate-state';
import { openStateStore } from './store/open-state';
import { importInitialTokens } from './store/secrets';
import { createVendorClient } from './upstream/vendor-client';
import { readTokensFromEnvOrStdin } from './util/read-secret';
import { listQuarantine, Quarantine } from './domain/quarantine';
import { vendorQuarantine } from './upstream/vendor-submission';
import { certificateForTrustStore, loadOrCreateTls } from './tls';
import { accountId } from './model/account-id';
import { explainListenError, portSettings } from './listen-error';
import { runningDemoConfig } from './running-demo';
import { version } from './version';
import { boundHeapGrowth } from './util/memory';
import { runSetup } from './setup';
import {
  accountDomains,
  appleProfile,
  type ClientKind,
  clientKinds,
  clientServers,
  outlookSteps,
  settingsLines,
  thunderbirdAutoconfig,
} from './client-config';
import { installService, uninstallService, unitName } from './service';

const defaultConfigFile = 'mailbridge.json';

/** commander option parser for whole numbers. */
const int = (value: string): number => Number.parseInt(value, 10);

/** The listener port flags of `start` and `demo`; each sets the MAILBRIDGE_* variable of its setting. */
function addPortOptions(command: Command): Command {
  for (const s of portSettings) {
    const off = s.name === 'ops' ? ' or "off"' : '';
    const example = `e.g. ${s.flag} ${s.example}`;
    command.option(`${s.flag} <port>`, `${s.name} port (overrides ${s.field} and ${s.env})`, (value: string) => {
      if ((off && value === 'off') || (/^\d{1,5}$/.test(value) && Number(value) <= 65535)) return value;
      throw new InvalidArgumentError(`it must be a port number from 0 to 65535${off}, ${example}`);
    });
  }
  return command;
}

/** The environment with the port flags given applied, as their MAILBRIDGE_* variables. */
function withPortFlags(opts: Record<string, unknown>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const s of portSettings) {
    const key = s.flag.slice(2).replace(/-(\w)/g, (_m, c: string) => c.toUpperCase());
    if (typeof opts[key] === 'string') env[s.env] = opts[key];
  }
  return env;
}

function configOption(): Option {
  return new Option('-c, --config <file>', 'config file (JSON); MAILBRIDGE_* variables override it').env(
    'MAILBRIDGE_CONFIG',
  );
}

/**
 * The config of `--config` (or MAILBRIDGE_CONFIG), else ./mailbridge.json, else the
 * environment's MAILBRIDGE_* settings, else the config of a demo running for this user.
 */
function load(file: string | undefined, env: NodeJS.ProcessEnv = process.env): Config {
  const chosen = file || (fs.existsSync(defaultConfigFile) ? defaultConfigFile : undefined);
  if (chosen || env.MAILBRIDGE_READ_URL) return loadConfig(chosen, env);
  const demo = runningDemoConfig();
  if (demo) {
    process.stderr.write(`mailbridge: using the running demo's config ${demo}\n`);
    return loadConfig(demo, env);
  }
  try {
    return loadConfig(undefined, env);
  } catch (err) {
    if (!(err instanceof ConfigError && /config field "vendor"/.test(err.message))) throw err;
    throw new ConfigError(
      `no configuration: pass --config FILE (a running demo prints its file after "Config:"), set MAILBRIDGE_CONFIG, or create ./${defaultConfigFile} with "mailbridge setup"`,
    );
  }
}

/** The configured state (SQLite or PostgreSQL), closed after `fn`. */
async function withState<T>(cfg: Config, fn: (state: StateStore) => Promise<T>): Promise<T> {
  const state = await openStateStore(cfg, 'cli');
  try {
    return await fn(state);
  } finally {
    await state.close();
  }
}

async function withVendor<T>(
  file: string | undefined,
  fn: (
    cfg: Config,
    vendor: ReturnType<typeof createVendorClient>,
    secrets: TokenVault,
    state: StateStore,
  ) => Promise<T>,
): Promise<T> {
  const cfg = load(file);
  const logger = createLogger(cfg.logLevel === 'info' ? 'warn' : cfg.logLevel, logStream(cfg.logFormat));
  return withState(cfg, async (state) => {
    const vendor = createVendorClient(cfg, state.secrets, logger);
    try {
      return await fn(cfg, vendor, state.secrets, state);
    } finally {
      await vendor.close();
    }
  });
}

/**
 * Doctor's token check: through the daemon running on the state directory, else directly. The
 * daemon's check is a request and perhaps a token refresh, each bounded by the vendor timeout,
 * after its place in the mailbox's rate window.
 */
function tokenCheck(cfg: Config, vendor: ReturnType<typeof createVendorClient>): TokenCheck {
  const waitMs = 2 * cfg.vendor.timeoutMs + 5_000;
  return async (mailbox) => {
    try {
      const answer = await callDaemon<DaemonTokenCheck>(cfg.stateDir, 'POST', '/verify', { mailbox }, waitMs);
      if (!answer.ok) throw new Error(answer.error);
      return 'asked through the running daemon';
    } catch (err) {
      if (!(err instanceof NoDaemonError)) throw err;
    }
    await vendor.mailbox(mailbox).verify();
    return null;
  };
}

/**
 * The config file the demo takes its settings from. The container image names its mounted
 * config in MAILBRIDGE_CONFIG; the demo needs none, so a variable naming no file is passed
 * over with a note rather than stopping `docker run IMAGE demo`. A --config naming no file
 * still stops it (exit 2): that one the user typed.
 */
function demoConfig(file: string | undefined, fromEnv: boolean): string | undefined {
  if (!file || !fromEnv || fs.existsSync(file)) return file;
  print(`MAILBRIDGE_CONFIG names ${file}, which does not exist: the demo runs without a config file`);
  return undefined;
}

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

export function buildProgram(): Command {
  const program = new Command('mailbridge')
    .description('Local IMAP and SMTP bridge to the vendor mail API')
    .version(version, '-V, --version')
    .showHelpAfterError('(add --help for usage)')
    .exitOverride();

  addPortOptions(
    program
      .command('start', { isDefault: false })
      .description('run the bridge (IMAP + SMTP) for the configured accounts')
      .addOption(configOption()),
  ).action(async (opts: { config?: string }) => {
    const cfg = load(opts.config, withPortFlags(opts));
    const logger = createLogger(cfg.logLevel, logStream(cfg.logFormat));
    boundHeapGrowth();
    const bridge = await startBridge(cfg, logger).catch((err: unknown) => {
      throw explainListenError(err, cfg) ?? err;
    });
    // before anyone is told it listens: a SIGTERM right after that must stop it gracefully,
    // not meet the default action (immediate death) in the moment before the handler exists
    const stopped = waitForSignal(
      () => bridge.close(),
      () => bridge.reload(),
    );
    print('mailbridge listening:');
    listenerLines(cfg, bridge).forEach(print);
    await stopped;
  });

  program
    .command('status')
    .description('ask the running daemon: per account the token, each folder, pending work and quarantine')
    .option('--json', 'print the report as JSON')
    .option('--cluster', 'every node on state.postgres: its address, last heartbeat and the mailboxes it serves')
    .addOption(configOption())
    .action(async (opts: { json?: boolean; cluster?: boolean; config?: string }) => {
      const report = opts.cluster
        ? await readCluster(load(opts.config))
        : await callDaemon<StatusReport>(load(opts.config).stateDir, 'GET', '/status');
      if (opts.json) print(JSON.stringify(report, null, 2));
      else if ('nodes' in report) formatCluster(report).forEach(print);
      else formatStatus(report).forEach(print);
    });

  program
    .command('resync')
    .description('repair: a full reconciliation of a mailbox (or one folder) with the vendor; every UID is kept')
    .requiredOption('--mailbox <address>', 'mailbox address')
    .option('--folder <name>', 'only this folder (IMAP name, e.g. INBOX)')
    .addOption(configOption())
    .action(async (opts: { mailbox: string; folder?: string; config?: string }) => {
      const result = await callDaemon<ResyncResult>(load(opts.config).stateDir, 'POST', '/resync', {
        mailbox: opts.mailbox,
        folder: opts.folder,
      });
      for (const f of result.folders)
        print(f.error ? `FAIL  ${f.folder}: ${f.error}` : `ok    ${f.folder}: ${f.messages} messages`);
      process.exitCode = result.folders.every((f) => !f.error) ? 0 : 1;
    });

  program
    .command('reload')
    .description('make the running daemon re-read its config and accounts (as SIGHUP does); sessions stay open')
    .addOption(configOption())
    .action(async (opts: { config?: string }) => {
      const r = await callDaemon<ReloadResult>(load(opts.config).stateDir, 'POST', '/reload');
      print(`added: ${r.added.join(', ') || 'none'}; removed: ${r.removed.join(', ') || 'none'}`);
      print(`applied: ${r.applied.join(', ') || 'nothing else changed'}`);
      if (r.needsRestart.length) print(`changed but needs a restart: ${r.needsRestart.join(', ')}`);
    });

  addPortOptions(
    program
      .command('demo')
      .description('start the sandbox vendor and the bridge against it, and print client settings')
      .option('--messages <n>', 'messages in the demo mailbox', int, 500)
      .addOption(configOption()),
  ).action(async (opts: { messages: number; config?: string }, command: Command) => {
    // until the demo runs, a signal exits through process.exit, which removes its temporary state
    const early = () => process.exit(130);
    process.once('SIGINT', early).once('SIGTERM', early);
    const config = demoConfig(opts.config, command.getOptionValueSource('config') === 'env');
    const demo = await runDemo({ messages: opts.messages, config, env: withPortFlags(opts) }, print);
    const stopped = waitForSignal(
      () => demo.close(),
      () => demo.reload(),
    );
    process.off('SIGINT', early).off('SIGTERM', early);
    await stopped;
  });

  program
    .command('setup')
    .description(
      'add a mailbox: asks for it and its token pair (or reads MAILBRIDGE_MAILBOX, MAILBRIDGE_ACCESS_TOKEN and ' +
        'MAILBRIDGE_REFRESH_TOKEN, or the tokens on stdin), checks them with the vendor, writes the config and the state',
    )
    .option('--mailbox <address>', 'mailbox address (asked for when missing)')
    .addOption(
      new Option('-c, --config <file>', 'config file to write or extend')
        .env('MAILBRIDGE_CONFIG')
        .default(defaultConfigFile),
    )
    .action(async (opts: { mailbox?: string; config: string }) => {
      const ok = await runSetup(opts.config, opts.mailbox, { env: process.env, input: process.stdin, print });
      process.exitCode = ok ? 0 : 1;
    });

  program
    .command('client-config')
    .description(
      'set up a mail client: thunderbird (autoconfig XML), apple (a .mobileconfig profile with the certificate), ' +
        'outlook (steps), generic (the settings)',
    )
    .addArgument(new Argument('<client>', 'which client').choices(clientKinds))
    .option('--mailbox <address>', 'the account (needed when several are configured)')
    .option('-o, --out <file>', 'file to write instead of standard output')
    .addOption(configOption())
    .action(async (client: ClientKind, opts: { mailbox?: string; out?: string; config?: string }) => {
      const cfg = load(opts.config);
      const mailboxes = await withState(cfg, async ({ secrets }) => [
        ...new Set([...cfg.accounts.map((a) => a.mailbox), ...secrets.mailboxes()]),
      ]);
      const pick = (): string => {
        if (opts.mailbox) return opts.mailbox;
        if (mailboxes.length === 1) return mailboxes[0];
        throw new ConfigError(
          mailboxes.length
            ? `several mailboxes are configured: pass --mailbox, one of ${mailboxes.join(', ')}`
            : 'no mailbox is configured yet: add one with "mailbridge setup"',
        );
      };
      const servers = clientServers(cfg);
      let text: string;
      if (client === 'thunderbird') text = thunderbirdAutoconfig(servers, accountDomains(mailboxes));
      else if (client === 'apple')
        text = appleProfile(servers, pick(), (await loadOrCreateTls(cfg.tls, cfg.stateDir)).cert);
      else if (client === 'outlook') text = `${outlookSteps(servers, pick()).join('\n')}\n`;
      else text = `${settingsLines(servers, pick()).join('\n')}\n`;
      if (opts.out) fs.writeFileSync(opts.out, text, { mode: 0o644 });
      else process.stdout.write(text);
    });

  const service = program
    .command('service')
    .description('run the bridge as a systemd user service (README "Running as a service" for launchd and Windows)');
  service
    .command('install')
    .description(`write ~/.config/systemd/user/${unitName}, which runs "start" with this config`)
    .addOption(configOption())
    .action((opts: { config?: string }) => {
      const file = opts.config || (fs.existsSync(defaultConfigFile) ? defaultConfigFile : undefined);
      if (!file) throw new ConfigError('the service needs a config file: pass --config FILE (see "mailbridge setup")');
      // a config that cannot start would only fail in the journal
      installService(loadConfig(file).configFile as string).forEach(print);
    });
  service
    .command('uninstall')
    .description(`remove ${unitName}`)
    .action(() => uninstallService().forEach(print));

  program
    .command('sandbox')
    .description('run only the sandbox vendor API (for tests and experiments)')
    .option('--messages <n>', 'corpus size of the first mailbox', int, 200)
    .option('--seed <n>', 'corpus seed', int, 1)
    .option('--latency <ms>', 'added latency per vendor request', int, 0)
    .action(async (opts: { messages: number; seed: number; latency: number }) => {
      const sandbox = await startSandbox({ messages: opts.messages, seed: opts.seed, latencyMs: opts.latency });
      print(JSON.stringify({ urls: sandbox.urls, apiKey: sandbox.apiKey }, null, 2));
      await waitForSignal(() => sandbox.close());
    });

  program
    .command('healthcheck')
    .description(
      'exit 0 if /healthz answers OK (or, with the ops listener off, IMAP greets); the container HEALTHCHECK',
    )
    .option('--ready', 'check /readyz instead (every account usable; needs the ops listener)')
    .addOption(configOption())
    .action(async (opts: { ready?: boolean; config?: string }) => {
      const file = opts.config || (fs.existsSync(defaultConfigFile) ? defaultConfigFile : undefined);
      process.exitCode = (await healthy(loadListenerSettings(file), opts.ready)) ? 0 : 1;
    });

  program
    .command('doctor')
    .description('check the config, vendor reachability and every account token')
    .addOption(configOption())
    .action(async (opts: { config?: string }) => {
      const ok = await withVendor(opts.config, (cfg, vendor, secrets) =>
        runDoctor(cfg, vendor, secrets, tokenCheck(cfg, vendor), print),
      );
      process.exitCode = ok ? 0 : 1;
    });

  program
    .command('domains')
    .description('list the shared domains senders can be created on')
    .addOption(configOption())
    .action(async (opts: { config?: string }) => {
      await withVendor(opts.config, async (_cfg, vendor) => {
        for (const d of (await vendor.sharedDomains()).domains) print(d);
      });
    });

  const sender = program.command('sender').description('manage senders (mailboxes)');
  sender
    .command('create')
    .description('create a sender on a shared or own verified domain')
    .requiredOption('--domain <domain>', 'shared domain (see "mailbridge domains") or own verified domain')
    .option('--local-part <name>', 'local part of the new address')
    .option('--name <display>', 'display name')
    .addOption(configOption())
    .action(async (opts: { domain: string; localPart?: string; name?: string; config?: string }) => {
      await withVendor(opts.config, async (_cfg, vendor) => {
        const created = await vendor.createSender({ domain: opts.domain, localPart: opts.localPart, name: opts.name });
        print(JSON.stringify(created, null, 2));
        print('Next: generate the mailbox key pair in webmail settings, then run "mailbridge account add".');
      });
    });

  const account = program.command('account').description('manage bridged accounts');
  account
    .command('add')
    .description(
      'store a mailbox token pair (tokens are read from MAILBRIDGE_ACCESS_TOKEN/MAILBRIDGE_REFRESH_TOKEN ' +
        'or stdin, never from the command line); the first time, print the bridge password for mail clients',
    )
    .requiredOption('--mailbox <address>', 'mailbox address')
    .addOption(configOption())
    .action(async (opts: { mailbox: string; config?: string }) => {
      const cfg = load(opts.config);
      const tokens = await readTokensFromEnvOrStdin();
      await withState(cfg, async ({ secrets }) => {
        // re-adding tokens (say after the refresh token lapsed) keeps the password mail clients already have
        const hadPassword = !!secrets.get(opts.mailbox)?.passwordHash;
        await secrets.putTokens(opts.mailbox, tokens);
        print(`Stored tokens for ${opts.mailbox}.`);
        if (hadPassword) print('The bridge password is unchanged; "mailbridge account password" makes a new one.');
        else
          print(
            'Bridge password (use it in your mail client; it is shown only now): ' +
              (await secrets.setBridgePassword(opts.mailbox)),
          );
      });
    });
  account
    .command('remove')
    .description(
      "forget a mailbox's tokens and bridge password; a running daemon stops serving it (remove it from the config file too)",
    )
    .requiredOption('--mailbox <address>', 'mailbox address')
    .addOption(configOption())
    .action(async (opts: { mailbox: string; config?: string }) => {
      const cfg = load(opts.config);
      if (!(await withState(cfg, async ({ secrets }) => secrets.remove(opts.mailbox))))
        print(`No tokens were stored for ${opts.mailbox}.`);
      else print(`Removed the tokens and bridge password of ${opts.mailbox}.`);
      if (cfg.accounts.some((a) => a.mailbox === accountId(opts.mailbox)))
        print('It is still listed under "accounts" in the config file: remove it there, then run "mailbridge reload".');
      else print('Run "mailbridge reload" (or send SIGHUP) so a running daemon stops serving it.');
    });
  account
    .command('password')
    .description('generate a new bridge password for a mailbox (the old one stops working)')
    .requiredOption('--mailbox <address>', 'mailbox address')
    .addOption(configOption())
    .action(async (opts: { mailbox: string; config?: string }) => {
      const cfg = load(opts.config);
      await withState(cfg, async ({ secrets }) => {
        await importInitialTokens(cfg, secrets);
        print(`New bridge password for ${opts.mailbox}: ${await secrets.setBridgePassword(opts.mailbox)}`);
      });
    });

  program
    .command('cert')
    .description('the TLS certificate of the IMAP and SMTP listeners')
    .command('export')
    .description(
      'write the certificate for a mail client or the OS trust store (the self-signed one is created if missing)',
    )
    .option('-o, --out <file>', 'file to write instead of standard output')
    .option('--der', 'DER (binary, for Windows) instead of PEM')
    .addOption(configOption())
    .action(async (opts: { out?: string; der?: boolean; config?: string }) => {
      const cfg = load(opts.config);
      const { cert } = await loadOrCreateTls(cfg.tls, cfg.stateDir);
      const { data, fingerprint } = certificateForTrustStore(cert, opts.der ? 'der' : 'pem');
      if (opts.out) fs.writeFileSync(opts.out, data, { mode: 0o644 });
      else process.stdout.write(data);
      process.stderr.write(`SHA-256 fingerprint: ${fingerprint}\n`);
    });

  const quarantine = program.command('quarantine').description('submissions held by the vendor spam filter');
  quarantine
    .command('list')
    .description('list held submissions recorded by the SMTP server')
    .addOption(configOption())
    .action(async (opts: { config?: string }) => {
      const cfg = load(opts.config);
      await withState(cfg, async ({ quarantine }) => {
        for (const line of listQuarantine(quarantine, new Date(), cfg.configFile)) print(line);
      });
    });
  quarantine
    .command('release')
    .description('release a held submission for delivery (within 3 hours)')
    .argument('<id>', 'quarantine_id from the SMTP rejection or "quarantine list"')
    .addOption(configOption())
    .action(async (id: string, opts: { config?: string }) => {
      await withVendor(opts.config, async (_cfg, vendor, _secrets, state) => {
        const quarantine = new Quarantine({ log: state.quarantine, vendor: vendorQuarantine(vendor) });
        const result = await quarantine.release(id);
        await state.committed();
        print(result.text);
        process.exitCode = result.ok ? 0 : 1;
      });
    });

  program
    .command('migrate-state')
    .description(
      'copy the SQLite state (UID maps, flags, drafts, quarantine, tokens) into the PostgreSQL database of ' +
        'state.postgres, keeping every UID and UIDVALIDITY; stop the daemon first',
    )
    .addOption(configOption())
    .action(async (opts: { config?: string }) => {
      const cfg = load(opts.config);
      const { postgres, secretKey } = cfg.state;
      if (!postgres || !secretKey)
        throw new ConfigError('migrate-state copies into state.postgres: set it (and state.secretKey) first');
      const copied = await migrateSqliteToPg(cfg.stateDir, { connection: postgres, secretKey });
      print(
        `Copied ${copied.accounts} account(s): ${copied.folders} folder(s), ${copied.messages} message UID(s), ` +
          `${copied.secrets} token record(s); every UID and UIDVALIDITY checked in PostgreSQL.`,
      );
      print('Start the nodes with state.postgres set; the SQLite file is left as it was.');
    });

  return program;
}

/**
 * Runs until SIGINT or SIGTERM: the first one closes gracefully (the listeners drain for at
 * most limits.shutdownDrainSeconds), a second one while that runs exits at once. SIGHUP calls
 * `reload` (a failed reload keeps the running settings).
 */
function waitForSignal(close: () => Promise<void>, reload?: () => Promise<unknown>): Promise<void> {
  return new Promise((resolve) => {
    const now = () => process.exit(130);
    const hup = () => {
      reload?.().catch((err: Error) =>
        process.stderr.write(`mailbridge: reload failed, settings unchanged: ${err.message}\n`),
      );
    };
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.off('SIGHUP', hup);
      process.once('SIGINT', now);
      process.once('SIGTERM', now);
      close().then(resolve, resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (reload) process.on('SIGHUP', hup);
  });
}

/** Without a subcommand: run the bridge if an account is configured, else the demo. */
function defaultArgs(argv: string[]): string[] {
  if (argv.length > 2) return argv;
  const file = process.env.MAILBRIDGE_CONFIG ?? (fs.existsSync(defaultConfigFile) ? defaultConfigFile : undefined);
  return file ? [...argv, 'start'] : [...argv, 'demo'];
}

export async function main(argv: string[]): Promise<void> {
  // `mailbridge status | head`: a reader that stops early is not an error of ours
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  const program = buildProgram();
  try {
    await program.parseAsync(defaultArgs(argv));
  } catch (err) {
    if (err instanceof ConfigError) {
      // one line per problem, each naming what to change
      for (const line of err.message.split('\n')) process.stderr.write(`mailbridge: ${line}\n`);
      process.exit(2);
    }
    const code = (err as { code?: string }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version') return;
    if (typeof code === 'string' && code.startsWith('commander.')) process.exit(2);
    throw err;
  }
}

// run directly (node -r tsx/cjs src/cli.ts ...), as the benchmarks do; bin/mailbridge.js calls main() itself
if (require.main === module) {
  main(process.argv).catch((err: Error) => {
    process.stderr.write(`mailbridge: ${err.message}\n`);
    process.exit(1);
  });
}
