import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../src/sandbox';
import { cliPath, type CliResult, spawnDaemon } from './support/cli-process';
import { freePort } from './support/free-port';

/**
 * `mailbridge setup` as a new user meets it: asked on a terminal (a pseudo-terminal from
 * script(1)) or scripted (environment and stdin), checked against the sandbox vendor, and
 * then a real client (imapflow) logs in with exactly what it printed.
 */

let sandbox: Sandbox;
let dir: string;
const ports = { imap: 0, smtp: 0 };

beforeAll(async () => {
  sandbox = await startSandbox({ messages: 5 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-setup-'));
  ports.imap = await freePort();
  ports.smtp = await freePort();
});
afterAll(async () => {
  await sandbox?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const portEnv = () => ({
  MAILBRIDGE_IMAP_PORT: String(ports.imap),
  MAILBRIDGE_SMTP_PORT: String(ports.smtp),
  MAILBRIDGE_OPS_PORT: 'off',
  MAILBRIDGE_CONFIG: '',
});
const vendorEnv = () => ({
  MAILBRIDGE_READ_URL: sandbox.urls.read,
  MAILBRIDGE_MAIL_URL: sandbox.urls.mail,
  MAILBRIDGE_GRAPH_URL: sandbox.urls.graph,
  MAILBRIDGE_API_KEY: sandbox.apiKey,
});

/** `mailbridge setup ARGS` with `stdin` piped in (a script's way). */
function setupScripted(args: string[], env: Record<string, string>, stdin: string): Promise<CliResult> {
  const child = spawn(process.execPath, ['-r', 'tsx/cjs', cliPath, 'setup', ...args], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  child.stdin.end(stdin);
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code: code ?? -1, stdout, stderr })));
}

/** What setup printed for the mail client. */
function printedSettings(out: string) {
  const imap = /Incoming\s+IMAP\s+server (\S+)\s+port (\d+)\s+security STARTTLS/.exec(out);
  return {
    host: imap?.[1] ?? '',
    port: Number(imap?.[2]),
    user: /Username\s+(\S+)/.exec(out)?.[1] ?? '',
    pass: /Password\s+(\S+)/.exec(out)?.[1] ?? '',
    start: /^ {2}(\S+ start --config \S+)$/m.exec(out)?.[1] ?? '',
  };
}

/** A real client logs in with the printed settings, to the bridge started by the printed command. */
async function logInAsPrinted(out: string): Promise<number> {
  const printed = printedSettings(out);
  const [, ...args] = printed.start.split(' ');
  const daemon = await spawnDaemon(args, /mailbridge listening:/, portEnv());
  const client = new ImapFlow({
    host: printed.host,
    port: printed.port,
    secure: false,
    doSTARTTLS: true,
    tls: { rejectUnauthorized: false },
    auth: { user: printed.user, pass: printed.pass },
    logger: false,
  });
  try {
    await client.connect();
    const inbox = await client.mailboxOpen('INBOX');
    await client.logout();
    return inbox.exists;
  } finally {
    await daemon.stop();
  }
}

describe('scripted', () => {
  test('environment and stdin: checked, written, and a client logs in with the printed settings; again adds a mailbox', async () => {
    const config = path.join(dir, 'scripted', 'mailbridge.json');
    fs.mkdirSync(path.dirname(config));
    const alice = sandbox.issueTokens('alice@sandbox.test');
    const first = await setupScripted(
      ['--config', config],
      { ...vendorEnv(), ...portEnv(), MAILBRIDGE_MAILBOX: 'alice@sandbox.test' },
      `${alice.accessToken}\n${alice.refreshToken}\n`,
    );
    expect(first.code, first.stderr + first.stdout).toBe(0);
    expect(first.stdout).toContain('webmail');
    expect(first.stdout).toMatch(/ok\s+tokens of alice@sandbox\.test: the vendor accepts them/);
    expect(first.stdout).not.toContain(alice.accessToken);
    expect(fs.statSync(config).mode & 0o777).toBe(0o600);
    const written = JSON.parse(fs.readFileSync(config, 'utf8'));
    expect(written.vendor).toMatchObject({ readUrl: sandbox.urls.read, apiKey: sandbox.apiKey });
    expect(written.accounts).toEqual([{ mailbox: 'alice@sandbox.test' }]);
    // the ports of this run's environment are printed, not written
    expect(written.listen).toBeUndefined();
    expect(printedSettings(first.stdout)).toMatchObject({
      host: '127.0.0.1',
      port: ports.imap,
      user: 'alice@sandbox.test',
    });
    expect(await logInAsPrinted(first.stdout)).toBe(5);

    const bob = sandbox.issueTokens('bob@sandbox.test');
    const second = await setupScripted(
      ['--config', config, '--mailbox', 'bob@sandbox.test'],
      { ...portEnv(), MAILBRIDGE_ACCESS_TOKEN: bob.accessToken, MAILBRIDGE_REFRESH_TOKEN: bob.refreshToken },
      '',
    );
    expect(second.code, second.stderr + second.stdout).toBe(0);
    expect(JSON.parse(fs.readFileSync(config, 'utf8')).accounts).toEqual([
      { mailbox: 'alice@sandbox.test' },
      { mailbox: 'bob@sandbox.test' },
    ]);
    expect(await logInAsPrinted(second.stdout)).toBeGreaterThanOrEqual(0);
  });

  test('tokens the vendor refuses: exit 1, the fix named, nothing written', async () => {
    const config = path.join(dir, 'refused.json');
    const res = await setupScripted(
      ['--config', config, '--mailbox', 'alice@sandbox.test'],
      { ...vendorEnv(), ...portEnv() },
      'not-a-token\nnot-a-refresh-token\n',
    );
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/FAIL\s+tokens of alice@sandbox\.test: the vendor accepts them: /);
    expect(res.stdout).toContain('Nothing was written. Generate a new key pair in the webmail settings');
    expect(fs.existsSync(config)).toBe(false);
    expect(fs.existsSync(path.join(dir, 'mailbridge-state'))).toBe(false);
  });
});

describe('on a terminal', () => {
  test('every question is asked, tokens are not echoed, and a client logs in with what it printed', async () => {
    const config = path.join(dir, 'tty', 'mailbridge.json');
    fs.mkdirSync(path.dirname(config));
    const tokens = sandbox.issueTokens('alice@sandbox.test');
    const command = [process.execPath, '-r', 'tsx/cjs', cliPath, 'setup', '--config', config]
      .map((w) => `'${w}'`)
      .join(' ');
    // script(1) runs the command on a new pseudo-terminal; what is written to its stdin is typed there
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: { ...process.env, ...portEnv(), TERM: 'dumb' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    const answers: Array<[RegExp, string]> = [
      [/Mailbox reading URL \(read_url\): $/, sandbox.urls.read],
      [/Sending URL \(mail_url\): $/, sandbox.urls.mail],
      [/Management URL \(graph_url\): $/, sandbox.urls.graph],
      [/sending fails\): $/, sandbox.apiKey],
      [/Mailbox address \(e\.g\. me@example\.com\): $/, 'alice@sandbox.test'],
      [/Access token: $/, tokens.accessToken],
      [/Refresh token: $/, tokens.refreshToken],
    ];
    child.stdout.on('data', (d: Buffer) => {
      screen += d.toString();
      const next = answers[0];
      if (next?.[0].test(screen)) {
        answers.shift();
        child.stdin.write(`${next[1]}\r`);
      }
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(
      answers.map(([q]) => String(q)),
      screen,
    ).toEqual([]);
    expect(code, screen).toBe(0);
    expect(screen).toContain('webmail');
    // the secret answers show as stars, never as typed
    for (const secret of [sandbox.apiKey, tokens.accessToken, tokens.refreshToken])
      expect(screen).not.toContain(secret);
    expect(screen).toContain('*'.repeat(tokens.accessToken.length));
    expect(await logInAsPrinted(screen.replace(/\r/g, ''))).toBe(5);
  });
});
