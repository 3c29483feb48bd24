import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../src/sandbox';
import { vendorSettings } from '../src/sandbox/vendor-settings';
import { mailbridge } from './support/cli-process';

/**
 * `mailbridge service install` writes a systemd user unit that systemd accepts and whose
 * ExecStart, run as systemd would run it, starts the bridge; `uninstall` removes it.
 */

const run = promisify(execFile);
let sandbox: Sandbox;
let dir: string;

beforeAll(async () => {
  sandbox = await startSandbox({ messages: 5 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge service-'));
});
afterAll(async () => {
  await sandbox?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** ExecStart's words as systemd splits them (double quotes, backslash escapes, %% and $$). */
function execWords(line: string): string[] {
  const words = [...line.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) =>
    m[1] === undefined ? m[2] : m[1].replace(/\\(.)/g, '$1'),
  );
  return words.map((w) => w.replace(/%%/g, '%').replace(/\$\$/g, '$'));
}

test('install writes a unit systemd-analyze verifies, whose ExecStart starts the bridge; uninstall removes it', async () => {
  // a path with a space and a per-cent sign, which systemd would otherwise split and expand
  const configDir = path.join(dir, 'my 100% config');
  fs.mkdirSync(configDir);
  const config = path.join(configDir, 'mailbridge.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      vendor: vendorSettings(sandbox),
      stateDir: './state',
      listen: { imapPort: 0, smtpPort: 0 },
      ops: { port: null },
    }),
  );
  const env = { XDG_CONFIG_HOME: path.join(dir, 'xdg') };
  const installed = await mailbridge(['service', 'install', '--config', config], env);
  expect(installed.code, installed.stderr).toBe(0);
  const unitFile = path.join(dir, 'xdg', 'systemd', 'user', 'mailbridge.service');
  expect(installed.stdout).toContain(`Wrote ${unitFile}`);
  expect(installed.stdout).toContain(
    'systemctl --user daemon-reload && systemctl --user enable --now mailbridge.service',
  );

  const verified = await run('systemd-analyze', ['verify', unitFile]).then(
    (r) => ({ code: 0, stderr: r.stderr }),
    (err: { code: number; stderr: string }) => err,
  );
  expect(verified).toEqual({ code: 0, stderr: '' });

  const unit = fs.readFileSync(unitFile, 'utf8');
  expect(unit).toMatch(/^Restart=on-failure$/m);
  expect(unit).toMatch(/^WantedBy=default\.target$/m);
  const [node, ...args] = execWords(/^ExecStart=(.*)$/m.exec(unit)?.[1] ?? '');
  expect(node).toBe(process.execPath);
  expect(args).toEqual([
    '--expose-gc',
    path.resolve(__dirname, '..', 'bin', 'mailbridge.js'),
    'start',
    '--config',
    config,
  ]);

  // as systemd runs it: the built bin, from another directory, stopped by SIGTERM
  const child = spawn(node, args, { cwd: os.tmpdir(), stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('mailbridge listening:')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
  });
  child.kill('SIGTERM');
  expect(await exited).toBe(0);

  const removed = await mailbridge(['service', 'uninstall'], env);
  expect(removed.code).toBe(0);
  expect(removed.stdout).toContain(`Removed ${unitFile}`);
  expect(fs.existsSync(unitFile)).toBe(false);
});
