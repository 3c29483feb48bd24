import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configDefaults, loadConfig, readRawConfig } from './config';
import { createLogger, logStream } from './log';
import { type RunningBridge, startBridge } from './bridge';
import { mailbridgeCommand } from './command-name';
import { explainListenError } from './listen-error';
import { listenerLines } from './listener-lines';
import { portOrFree } from './port-probe';
import { type Sandbox, startSandbox } from './sandbox';
import { ensureStateDir } from './state-dir';
import { SecretStore } from './store/secrets';
import { writeFileAtomic } from './util/atomic-file';
import { configFlag, shellWord } from './util/shell-quote';
import { vendorSettings } from './sandbox/vendor-settings';

export interface DemoOptions {
  messages: number;
  /** A config file whose settings the demo takes, as `start` would (vendor and accounts are the sandbox's). */
  config?: string;
  /** MAILBRIDGE_* overrides (the command-line port flags included); process.env by default. */
  env?: NodeJS.ProcessEnv;
}

const demoMailbox = 'alice@sandbox.test';
/** The temporary state directories of demos: `demoStateDirs` finds the running ones by this prefix. */
export const demoDirPrefix = 'mailbridge-demo-';

/** The TLS file names of the base config, resolved where that file was: the demo's copy lives elsewhere. */
function absolutePaths(tls: unknown, baseDir: string): unknown {
  if (typeof tls !== 'object' || tls === null) return tls;
  return Object.fromEntries(
    Object.entries(tls).map(([k, v]) => [k, typeof v === 'string' ? path.resolve(baseDir, v) : v]),
  );
}

/**
 * The ports the demo listens on: those the config, the environment or a flag names are
 * kept (a busy one fails with the setting named); a default that another program holds
 * (1143 and 1025 are also other bridges' defaults) gives way to a free port, and so does
 * the ops port, which the demo does not need. `notes` says what moved.
 */
async function demoPorts(raw: Record<string, unknown>): Promise<{
  listen: Record<string, unknown>;
  ops: Record<string, unknown>;
  notes: string[];
}> {
  const defaults = configDefaults();
  const listen: Record<string, unknown> = { host: '127.0.0.1', ...(raw.listen as object | undefined) };
  const ops: Record<string, unknown> = { ...(raw.ops as object | undefined) };
  const notes: string[] = [];
  const settle = async (
    target: Record<string, unknown>,
    key: string,
    wanted: number,
    host: string,
    label: string,
  ): Promise<void> => {
    const port = await portOrFree(wanted, host);
    if (port !== wanted) notes.push(`${label} port ${wanted} is in use by another program: the demo uses ${port}`);
    target[key] = port;
  };
  const host = String(listen.host);
  if (listen.imapPort === undefined) await settle(listen, 'imapPort', defaults.listen.imapPort, host, 'IMAP');
  if (listen.smtpPort === undefined) await settle(listen, 'smtpPort', defaults.listen.smtpPort, host, 'SMTP');
  if (ops.port !== null) {
    const wanted = typeof ops.port === 'number' ? ops.port : (defaults.ops.port as number);
    await settle(ops, 'port', wanted, typeof ops.host === 'string' ? ops.host : defaults.ops.host, 'ops');
  }
  return { listen, ops, notes };
}

/**
 * `mailbridge demo`: the sandbox vendor with a seeded mailbox, the bridge in front of it, and
 * the settings to type into a mail client. Ports and options come from the config file and
 * MAILBRIDGE_* variables as for `start`; the vendor and the account are the sandbox's. The
 * effective config is written into the state directory, so every CLI command works on the
 * demo with `--config` that file (or finds it alone while the demo runs). Without a configured
 * state directory a fresh temporary one is used and removed at exit, however the process
 * ends short of SIGKILL: it holds tokens and the TLS key, and the sandbox issues new tokens
 * every run anyway.
 */
export async function runDemo(
  opts: DemoOptions,
  print: (line: string) => void,
): Promise<{ reload(): Promise<unknown>; close(): Promise<void> }> {
  const { raw, baseDir } = readRawConfig(opts.config, opts.env);
  const chosenStateDir = typeof raw.stateDir === 'string' ? path.resolve(baseDir, raw.stateDir) : null;
  const stateDir = chosenStateDir ?? fs.mkdtempSync(path.join(os.tmpdir(), demoDirPrefix));
  const removeState = () => {
    if (!chosenStateDir) fs.rmSync(stateDir, { recursive: true, force: true });
  };
  // process.exit (a second Ctrl+C, a failed start) runs 'exit' listeners, and nothing else
  process.once('exit', removeState);
  let sandbox: Sandbox | null = null;
  let bridge: RunningBridge | null = null;
  try {
    ensureStateDir(stateDir);
    const { listen, ops, notes } = await demoPorts(raw);
    sandbox = await startSandbox({ messages: opts.messages });
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
          ops,
          tls: absolutePaths(raw.tls, baseDir),
          stateDir,
        },
        null,
        2,
      )}\n`,
    );
    // the environment is already in the file; reading it again with the environment changes nothing
    const config = loadConfig(configFile, opts.env);
    // this run's sandbox tokens replace whatever an earlier demo stored
    SecretStore.open(stateDir).putTokens(demoMailbox, sandbox.issueTokens(demoMailbox));
    bridge = await startBridge(config, createLogger(config.logLevel, logStream(config.logFormat))).catch(
      (err: unknown) => {
        throw explainListenError(err, config) ?? err;
      },
    );
    const password = await bridge.secrets.setBridgePassword(demoMailbox);
    const command = `${shellWord(mailbridgeCommand())}`;
    const withConfig = configFlag(configFile);
    const security = (tlsPort: number | null) =>
      `connection security STARTTLS (or None)${tlsPort === null ? '' : `, or SSL/TLS on port ${tlsPort}`}`;
    [
      'mailbridge demo is running against the built-in sandbox vendor.',
      ...notes,
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
      `  ${command} status${withConfig}`,
      `  ${command} quarantine list${withConfig}`,
      '  (send a message whose subject says "lottery winner": the sandbox spam filter holds it, and the',
      '   550 answer prints the command that releases it)',
      '',
      `Sandbox: ${opts.messages} seeded messages; control API at ${sandbox.urls.control} (see docs/sandbox.md).`,
      'Press Ctrl+C to stop.',
    ].forEach(print);
  } catch (err) {
    await bridge?.close().catch(() => undefined);
    await sandbox?.close();
    removeState();
    process.off('exit', removeState);
    throw err;
  }
  const running = { bridge, sandbox };
  return {
    reload: () => running.bridge.reload(),
    close: async () => {
      await running.bridge.close();
      await running.sandbox.close();
      removeState();
      process.off('exit', removeState);
    },
  };
}
