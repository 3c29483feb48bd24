import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { cliPath } from './support/cli-process';
import { freePort } from './support/free-port';

/**
 * Logs as people and collectors read them: JSON lines off a terminal (each key once), one
 * readable line each on a terminal or with MAILBRIDGE_LOG_FORMAT=pretty, and a client that
 * refuses the self-signed certificate (openssl s_client verifying it, as Thunderbird does)
 * is one info line per connection, with no stack.
 */

const run = promisify(execFile);
let dir: string;
const ports = { imap: 0, imaps: 0 };

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-log-'));
  ports.imap = await freePort();
  ports.imaps = await freePort();
  fs.writeFileSync(
    path.join(dir, 'config.json'),
    JSON.stringify({
      vendor: { readUrl: 'http://127.0.0.1:9', mailUrl: 'http://127.0.0.1:9', graphUrl: 'http://127.0.0.1:9' },
      stateDir: './state',
      listen: { imapPort: ports.imap, imapsPort: ports.imaps, smtpPort: 0 },
      ops: { port: null },
    }),
  );
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Runs `start` (through script(1) for a terminal), does `meanwhile`, stops it; what it logged. */
async function logsOf(env: Record<string, string>, meanwhile: () => Promise<void>, terminal = false): Promise<string> {
  const argv = [process.execPath, '-r', 'tsx/cjs', cliPath, 'start', '--config', path.join(dir, 'config.json')];
  const [cmd, ...args] = terminal ? ['script', '-qfec', argv.map((w) => `'${w}'`).join(' '), '/dev/null'] : argv;
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    const check = () => (out.includes('mailbridge started') ? resolve() : undefined);
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.once('exit', () => reject(new Error(out)));
  });
  await meanwhile();
  // through script(1) the signal goes to the program on the terminal, as Ctrl+C would
  if (terminal) child.stdin.write('\x03');
  else child.kill('SIGTERM');
  await exited;
  return out;
}

/** A client that checks the certificate and refuses it (TLS alert "unknown CA"). */
async function refuseCertificate(args: string[]): Promise<void> {
  const res = await run('openssl', ['s_client', '-verify_return_error', '-servername', 'localhost', ...args], {
    timeout: 10_000,
  }).catch((err: { stdout: string; stderr: string }) => err);
  expect(res.stderr).toMatch(/verify error|self.signed/i);
}

test('off a terminal: JSON lines, each key once; a refused certificate is one info line per connection, no stack', async () => {
  const logs = await logsOf({ MAILBRIDGE_LOG_FORMAT: '' }, async () => {
    await refuseCertificate(['-connect', `127.0.0.1:${ports.imap}`, '-starttls', 'imap']);
    await refuseCertificate(['-connect', `127.0.0.1:${ports.imaps}`]);
  });
  const lines = logs
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => {
      for (const key of l.match(/"\w+":/g) ?? [])
        expect(l.split(key).length, `${key} twice in ${l}`).toBeLessThanOrEqual(2);
      return JSON.parse(l) as { level: number; msg: string; reason?: string };
    });
  const handshakes = lines.filter((l) => /TLS handshake/.test(l.msg));
  expect(handshakes.map((l) => [l.level, l.reason])).toEqual([
    [30, 'tlsv1 alert unknown ca'],
    [30, 'tlsv1 alert unknown ca'],
  ]);
  expect(lines.filter((l) => l.level >= 40)).toEqual([]);
  expect(logs).not.toMatch(/stack|rec_layer/);
});

test('on a terminal, or with MAILBRIDGE_LOG_FORMAT=pretty: one readable line each', async () => {
  for (const [env, terminal] of [
    [{ MAILBRIDGE_LOG_FORMAT: 'pretty' }, false],
    [{ MAILBRIDGE_LOG_FORMAT: '', TERM: 'dumb' }, true],
  ] as const) {
    const logs = await logsOf(env, async () => undefined, terminal);
    const started = logs.split(/\r?\n/).find((l) => l.includes('mailbridge started')) ?? '';
    expect(started).toMatch(/^\S*\[\d\d:\d\d:\d\d\] \S*INFO\S*: \S*mailbridge started/);
    expect(logs).not.toContain('{"level"');
  }
});
