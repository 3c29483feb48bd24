import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, readRawConfig } from './config';
import { createLogger } from './log';
import { startBridge } from './bridge';
import { listenerLines } from './listener-lines';
import { startSandbox } from './sandbox';
import { ensureStateDir } from './state-dir';
import { SecretStore } from './store/secrets';
import { writeFileAtomic } from './util/atomic-file';
import { configFlag } from './util/shell-quote';
import { vendorSettings } from './sandbox/vendor-settings';

export interface DemoOptions {
  messages: number;
  /** Override listen.imapPort / listen.smtpPort of the config and the environment. */
  imapPort?: number;
  smtpPort?: number;
  /** A config file whose settings the demo takes, as `start` would (vendor and accounts are the sandbox's). */
  config?: string;
}

const demoMailbox = 'alice@sandbox.test';

/** The TLS file names of the base config, resolved where that file was: the demo's copy lives elsewhere. */
function absolutePaths(tls: unknown, baseDir: string): unknown {
  if (typeof tls !== 'object' || tls === null) return tls;
  return Object.fromEntries(
    Object.entries(tls).map(([k, v]) => [k, typeof v === 'string' ? path.resolve(baseDir, v) : v]),
  );
}

/**
 * `mailbridge demo`: the sandbox vendor with a seeded mailbox, the bridge in front of it, and
 * the settings to type into a mail client. Ports and options come from the config file and
 * MAILBRIDGE_* variables as for `start`; the vendor and the account are the sandbox's. The
 * effective config is written into the state directory, so every CLI command works on the
 * demo with `--config` that file. Without a configured state directory a fresh temporary one
 * is used and removed at exit: the sandbox issues new tokens every run.
 */
export async function runDemo(
  opts: DemoOptions,
  print: (line: string) => void,
): Promise<{ reload(): Promise<unknown>; close(): Promise<void> }> {
  const { raw, baseDir } = readRawConfig(opts.config);
  const chosenStateDir = typeof raw.stateDir === 'string' ? path.resolve(baseDir, raw.stateDir) : null;
  const stateDir = chosenStateDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-demo-'));
  ensureStateDir(stateDir);
  const listen: Record<string, unknown> = { host: '127.0.0.1', ...(raw.listen as object | undefined) };
  if (opts.imapPort !== undefined) listen.imapPort = opts.imapPort;
  if (opts.smtpPort !== undefined) listen.smtpPort = opts.smtpPort;

  const sandbox = await startSandbox({ messages: opts.messages });
  const configFile = path.join(stateDir, 'config.json');
  writeFileAtomic(
    configFile,
    `${JSON.stringify(
      {
        pollIntervalSeconds: 5,
        logLevel: 'warn',
        ...raw,
        vendor: vendorSettings(sandbox),
        accounts: [{ mailbox: demoMailbox }],
        listen,
        tls: absolutePaths(raw.tls, baseDir),
        stateDir,
      },
      null,
      2,
    )}\n`,
  );
  // the environment is already in the file; reading it again with the environment changes nothing
  const config = loadConfig(configFile);
  // this run's sandbox tokens replace whatever an earlier demo stored
  SecretStore.open(stateDir).putTokens(demoMailbox, sandbox.issueTokens(demoMailbox));
  const bridge = await startBridge(config, createLogger(config.logLevel));
  const password = await bridge.secrets.setBridgePassword(demoMailbox);
  const withConfig = configFlag(configFile);
  const security = (tlsPort: number | null) =>
    `connection security STARTTLS (or None)${tlsPort === null ? '' : `, or SSL/TLS on port ${tlsPort}`}`;
  [
    'mailbridge demo is running against the built-in sandbox vendor.',
    '',
    'Thunderbird: Account Settings > Add Mail Account > Configure manually',
    `  Incoming  IMAP  server 127.0.0.1  port ${bridge.ports.imap}  ${security(bridge.ports.imaps)}  authentication Normal password`,
    `  Outgoing  SMTP  server 127.0.0.1  port ${bridge.ports.smtp}  ${security(bridge.ports.smtps)}  authentication Normal password`,
    `  Username  ${demoMailbox}`,
    `  Password  ${password}`,
    '  (the certificate is self-signed for localhost: accept the exception once)',
    '',
    'Listening:',
    ...listenerLines(config, bridge),
    '',
    `Config: ${configFile} (this demo's effective settings: give it to every mailbridge command)`,
    `State:  ${stateDir}${chosenStateDir ? '' : ' (removed when the demo stops)'}`,
    'Try, while the demo runs:',
    `  mailbridge status${withConfig}`,
    `  mailbridge quarantine list${withConfig}`,
    '  (send a message whose subject says "lottery winner": the sandbox spam filter holds it, and the',
    '   550 answer prints the command that releases it)',
    '',
    `Sandbox: ${opts.messages} seeded messages; control API at ${sandbox.urls.control} (see docs/sandbox.md).`,
    'Press Ctrl+C to stop.',
  ].forEach(print);
  return {
    reload: () => bridge.reload(),
    close: async () => {
      await bridge.close();
      await sandbox.close();
      if (!chosenStateDir) fs.rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
