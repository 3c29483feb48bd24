import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Sandbox } from '../../src/sandbox';
import { mailbox } from './bridge-harness';
import { freePort } from './free-port';
import { vendorSettings } from '../../src/sandbox/vendor-settings';

/** The real CLI daemon (`mailbridge start`) in a child process, against a sandbox vendor. */

const run = promisify(execFile);
const cli = path.join(__dirname, '..', '..', 'src', 'cli.ts');

export interface DaemonSetup {
  dir: string;
  config: string;
  imapPort: number;
  smtpPort: number;
  password: string;
}

/** A config file and state dir for `mailbox` on free ports, with a bridge password made by the CLI. */
export async function setUpDaemon(sandbox: Sandbox, extra: Record<string, unknown> = {}): Promise<DaemonSetup> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-daemon-'));
  const config = path.join(dir, 'config.json');
  const imapPort = await freePort();
  const smtpPort = await freePort();
  fs.writeFileSync(
    config,
    JSON.stringify({
      vendor: vendorSettings(sandbox),
      accounts: [{ mailbox, ...sandbox.issueTokens(mailbox) }],
      listen: { host: '127.0.0.1', imapPort, smtpPort },
      ops: { port: 0 },
      stateDir: path.join(dir, 'state'),
      pollIntervalSeconds: 3600,
      logLevel: 'silent',
      ...extra,
    }),
  );
  const { stdout } = await mailbridge('account', 'password', '--mailbox', mailbox, '--config', config);
  const password = /: (\S+)\s*$/.exec(stdout.trim())?.[1] ?? '';
  if (!password) throw new Error(`no password in: ${stdout}`);
  return { dir, config, imapPort, smtpPort, password };
}

/** Runs a CLI command to completion. */
export function mailbridge(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, ['-r', 'tsx/cjs', cli, ...args]);
}

/**
 * `mailbridge start`, resolved once the IMAP port greets: polled (every 50 ms, 30 s at most), as
 * the child process says nothing on its own (silent log) and its start is its own.
 */
export async function startDaemon(setup: DaemonSetup): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-r', 'tsx/cjs', cli, 'start', '--config', setup.config], { stdio: 'ignore' });
  for (let i = 0; i < 600; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(setup.imapPort, '127.0.0.1');
      s.once('data', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (up) return child;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error('the daemon did not start listening');
}

/**
 * The exit code, or "still running" if the process has not exited within `waitMs`: a bound on the
 * real clock, as what is awaited is another process's exit (resolved as soon as it happens).
 */
export function exitOf(child: ChildProcess, waitMs: number): Promise<number | string> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('still running'), waitMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? `killed by ${signal}`);
    });
  });
}

export async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
}
