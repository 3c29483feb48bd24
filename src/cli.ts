import fs from 'node:fs';
import { Command, Option } from 'commander';
import { ConfigError, loadConfig, type Config } from './config';
import { createLogger } from './log';
import { startBridge } from './bridge';
import { runDemo } from './demo';
import { startSandbox } from './sandbox';
import { runDoctor } from './doctor';
import { imapAnswers } from './healthcheck';
import { SecretStore, importInitialTokens } from './store/secrets';
import { createVendorClient } from './upstream/vendor-client';
import { readTokensFromEnvOrStdin } from './util/read-secret';
import { listQuarantine, releaseQuarantine } from './smtp/quarantine-commands';
import { openDatabase } from './store/db';
import { certificateForTrustStore, loadOrCreateTls } from './tls';
import { QuarantineStore } from './store/quarantine';

const defaultConfigFile = 'mailbridge.json';

/** commander option parser for whole numbers. */
const int = (value: string): number => Number.parseInt(value, 10);

function configOption(): Option {
  return new Option('-c, --config <file>', 'config file (JSON); MAILBRIDGE_* variables override it').env(
    'MAILBRIDGE_CONFIG',
  );
}

function load(file: string | undefined): Config {
  return loadConfig(file ?? (fs.existsSync(defaultConfigFile) ? defaultConfigFile : undefined));
}

async function withVendor<T>(
  file: string | undefined,
  fn: (cfg: Config, vendor: ReturnType<typeof createVendorClient>, secrets: SecretStore) => Promise<T>,
): Promise<T> {
  const cfg = load(file);
  const logger = createLogger(cfg.logLevel === 'info' ? 'warn' : cfg.logLevel);
  const secrets = SecretStore.open(cfg.stateDir);
  const vendor = createVendorClient(cfg, secrets, logger);
  try {
    return await fn(cfg, vendor, secrets);
  } finally {
    await vendor.close();
  }
}

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

export function buildProgram(): Command {
  const program = new Command('mailbridge')
    .description('Local IMAP and SMTP bridge to the vendor mail API')
    .showHelpAfterError()
    .exitOverride();

  program
    .command('start', { isDefault: false })
    .description('run the bridge (IMAP + SMTP) for the configured accounts')
    .addOption(configOption())
    .action(async (opts: { config?: string }) => {
      const cfg = load(opts.config);
      const bridge = await startBridge(cfg, createLogger(cfg.logLevel));
      print(
        `mailbridge listening: IMAP ${cfg.listen.host}:${bridge.ports.imap}, ` +
          `SMTP ${cfg.listen.host}:${bridge.ports.smtp}`,
      );
      await waitForSignal(() => bridge.close());
    });

  program
    .command('demo')
    .description('start the sandbox vendor and the bridge against it, and print client settings')
    .option('--messages <n>', 'messages in the demo mailbox', int, 500)
    .option('--imap-port <port>', 'IMAP port', int, 1143)
    .option('--smtp-port <port>', 'SMTP port', int, 1025)
    .action(async (opts: { messages: number; imapPort: number; smtpPort: number }) => {
      const demo = await runDemo(opts, print);
      await waitForSignal(() => demo.close());
    });

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
    .description('exit 0 if the IMAP listener answers (used by the container HEALTHCHECK)')
    .addOption(configOption())
    .action(async (opts: { config?: string }) => {
      const cfg = load(opts.config);
      const host = cfg.listen.host === '0.0.0.0' || cfg.listen.host === '::' ? '127.0.0.1' : cfg.listen.host;
      process.exitCode = (await imapAnswers(host, cfg.listen.imapPort)) ? 0 : 1;
    });

  program
    .command('doctor')
    .description('check the config, vendor reachability and every account token')
    .addOption(configOption())
    .action(async (opts: { config?: string }) => {
      const ok = await withVendor(opts.config, (cfg, vendor, secrets) => runDoctor(cfg, vendor, secrets, print));
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
      const secrets = SecretStore.open(cfg.stateDir);
      // re-adding tokens (say after the refresh token lapsed) keeps the password mail clients already have
      const hadPassword = !!secrets.get(opts.mailbox)?.passwordHash;
      secrets.putTokens(opts.mailbox, tokens);
      print(`Stored tokens for ${opts.mailbox}.`);
      if (hadPassword) print('The bridge password is unchanged; "mailbridge account password" makes a new one.');
      else
        print(
          'Bridge password (use it in your mail client; it is shown only now): ' +
            secrets.setBridgePassword(opts.mailbox),
        );
    });
  account
    .command('password')
    .description('generate a new bridge password for a mailbox (the old one stops working)')
    .requiredOption('--mailbox <address>', 'mailbox address')
    .addOption(configOption())
    .action((opts: { mailbox: string; config?: string }) => {
      const cfg = load(opts.config);
      const secrets = SecretStore.open(cfg.stateDir);
      importInitialTokens(cfg, secrets);
      print(`New bridge password for ${opts.mailbox}: ${secrets.setBridgePassword(opts.mailbox)}`);
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
    .action((opts: { config?: string }) => {
      const db = openDatabase(load(opts.config).stateDir);
      try {
        for (const line of listQuarantine(new QuarantineStore(db))) print(line);
      } finally {
        db.close();
      }
    });
  quarantine
    .command('release')
    .description('release a held submission for delivery (within 3 hours)')
    .argument('<id>', 'quarantine_id from the SMTP rejection or "quarantine list"')
    .addOption(configOption())
    .action(async (id: string, opts: { config?: string }) => {
      await withVendor(opts.config, async (cfg, vendor) => {
        const db = openDatabase(cfg.stateDir);
        try {
          const result = await releaseQuarantine(vendor, new QuarantineStore(db), id);
          print(result.text);
          process.exitCode = result.ok ? 0 : 1;
        } finally {
          db.close();
        }
      });
    });

  return program;
}

/**
 * The first SIGINT/SIGTERM closes gracefully (the listeners drain for at most
 * limits.shutdownDrainSeconds); a second one while that runs exits at once.
 */
function waitForSignal(close: () => Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const now = () => process.exit(130);
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.once('SIGINT', now);
      process.once('SIGTERM', now);
      close().then(resolve, resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** Without a subcommand: run the bridge if an account is configured, else the demo. */
function defaultArgs(argv: string[]): string[] {
  if (argv.length > 2) return argv;
  const file = process.env.MAILBRIDGE_CONFIG ?? (fs.existsSync(defaultConfigFile) ? defaultConfigFile : undefined);
  return file ? [...argv, 'start'] : [...argv, 'demo'];
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(defaultArgs(argv));
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`mailbridge: invalid configuration\n${err.message}\n`);
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
