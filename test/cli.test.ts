import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadConfig, ConfigError } from '../src/config';
import { startSandbox, type Sandbox } from '../src/sandbox';
import { spawn } from 'node:child_process';
import { cliPath, mailbridge } from './support/cli-process';
import { vendorSettings } from '../src/sandbox/vendor-settings';

let sandbox: Sandbox;
let dir: string;

beforeAll(async () => {
  sandbox = await startSandbox({ messages: 20 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-cli-'));
});

afterAll(async () => {
  await sandbox?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function writeConfig(extra: Record<string, unknown> = {}): string {
  const file = path.join(dir, 'config.json');
  fs.writeFileSync(
    file,
    JSON.stringify({
      vendor: vendorSettings(sandbox),
      accounts: [{ mailbox: 'alice@sandbox.test' }],
      stateDir: './state',
      ...extra,
    }),
  );
  return file;
}

describe('configuration', () => {
  test('a bad value names the field and the fix', () => {
    const file = path.join(dir, 'bad.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        vendor: { readUrl: 'not a url', mailUrl: 'http://x', graphUrl: 'http://x' },
        listen: { imapPort: 70000, smtpPort: '25' },
        pollIntervalSecond: 5,
      }),
    );
    expect(() => loadConfig(file, {})).toThrow(ConfigError);
    try {
      loadConfig(file, {});
    } catch (err) {
      const text = (err as Error).message;
      expect(text).toMatch(/"vendor\.readUrl".*absolute URL/);
      expect(text).toMatch(/"listen\.imapPort"/);
      // a value of the wrong type is not reported as missing
      expect(text).toMatch(/"listen\.smtpPort".*expected number, received string/);
      expect(text).toMatch(/unknown key\(s\) pollIntervalSecond/);
    }
  });

  test('the assumptions section is validated like the others: a wrong type or an unknown key is named', async () => {
    const file = writeConfig({
      assumptions: {
        commands: { search: { name: 7 }, serch: { name: 'find' } },
        resultFields: { updated: '' },
        unsupportedCommandCodes: 'UNKNOWN_COMMAND',
      },
    });
    const res = await mailbridge(['doctor', '--config', file]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/config field "assumptions\.commands\.search\.name".*expected string/);
    expect(res.stderr).toMatch(/config field "assumptions\.commands".*unknown key\(s\) serch: remove them or fix/);
    expect(res.stderr).toMatch(/config field "assumptions\.resultFields\.updated".*non-empty/);
    expect(res.stderr).toMatch(/config field "assumptions\.unsupportedCommandCodes".*expected array/);
    // a valid override still deep-merges onto the defaults
    const ok = loadConfig(writeConfig({ assumptions: { commands: { search: { name: 'find' } } } }), {});
    expect(ok.assumptions.commands.search.name).toBe('find');
    expect(ok.assumptions.commands.flag.name).toBe('flag');
  });

  test('MAILBRIDGE_* variables override the file, and are validated too', () => {
    const file = writeConfig();
    expect(loadConfig(file, { MAILBRIDGE_IMAP_PORT: '2143' }).listen.imapPort).toBe(2143);
    expect(() => loadConfig(file, { MAILBRIDGE_IMAP_PORT: 'abc' })).toThrow(/MAILBRIDGE_IMAP_PORT.*not a number/);
  });

  test('the CLI exits non-zero with the field named', async () => {
    const file = path.join(dir, 'bad-cli.json');
    fs.writeFileSync(
      file,
      JSON.stringify({ vendor: { readUrl: 'http://x', mailUrl: 'http://x', graphUrl: 'http://x' }, logLevel: 'loud' }),
    );
    const res = await mailbridge(['doctor', '--config', file]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/config field "logLevel"/);
  });
});

describe('commands against the sandbox', () => {
  test('account add stores tokens from the environment and prints a bridge password; doctor, domains', async () => {
    const file = writeConfig();
    const tokens = sandbox.issueTokens('alice@sandbox.test');
    const added = await mailbridge(['account', 'add', '--mailbox', 'alice@sandbox.test', '--config', file], {
      MAILBRIDGE_ACCESS_TOKEN: tokens.accessToken,
      MAILBRIDGE_REFRESH_TOKEN: tokens.refreshToken,
    });
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/Bridge password .*: \S{20,}/);
    expect(added.stdout + added.stderr).not.toContain(tokens.accessToken);
    const secrets = path.join(dir, 'state', 'secrets.json');
    expect(fs.statSync(secrets).mode & 0o777).toBe(0o600);

    // adding fresh tokens again keeps the password the mail clients already use
    const renewed = sandbox.issueTokens('alice@sandbox.test');
    const again = await mailbridge(['account', 'add', '--mailbox', 'alice@sandbox.test', '--config', file], {
      MAILBRIDGE_ACCESS_TOKEN: renewed.accessToken,
      MAILBRIDGE_REFRESH_TOKEN: renewed.refreshToken,
    });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('bridge password is unchanged');
    expect(again.stdout).not.toMatch(/Bridge password .*: \S{20,}/);

    const doctor = await mailbridge(['doctor', '--config', file]);
    expect(doctor.stdout).toMatch(/ok\s+account alice@sandbox.test: tokens valid, bridge password set/);
    expect(doctor.code).toBe(0);

    const domains = await mailbridge(['domains', '--config', file]);
    expect(domains.stdout.trim().split('\n')).toContain('sandbox.test');

    sandbox.revokeTokens('alice@sandbox.test');
    const broken = await mailbridge(['doctor', '--config', file]);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/FAIL\s+account alice@sandbox.test/);
  });

  test('doctor does not wait for ever on a daemon that does not answer', async () => {
    // a control socket that takes the connection and never answers, as a stopped daemon's would
    const stateDir = path.join(dir, 'hung-state');
    fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const hung = net.createServer(() => undefined);
    await new Promise<void>((resolve) => hung.listen(path.join(stateDir, 'control.sock'), resolve));
    try {
      const tokens = sandbox.issueTokens('alice@sandbox.test');
      const file = writeConfig({
        vendor: { ...vendorSettings(sandbox), timeoutMs: 100 },
        accounts: [{ mailbox: 'alice@sandbox.test', ...tokens }],
        stateDir,
      });
      await mailbridge(['account', 'password', '--mailbox', 'alice@sandbox.test', '--config', file]);
      const doctor = await mailbridge(['doctor', '--config', file]);
      expect(doctor.stdout).toMatch(
        /FAIL\s+account alice@sandbox.test: the daemon on .* did not answer \/verify within 5\.2 s/,
      );
      expect(doctor.code).toBe(1);
    } finally {
      hung.close();
    }
  });

  test('sender create on a shared domain', async () => {
    const file = writeConfig();
    const res = await mailbridge([
      'sender',
      'create',
      '--domain',
      'shared-mail.test',
      '--local-part',
      'newsletter',
      '--config',
      file,
    ]);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('newsletter@shared-mail.test');
  });
});

describe('a start that cannot work says in one line what to change, with exit 2', () => {
  const vendor = { readUrl: 'http://127.0.0.1:9', mailUrl: 'http://127.0.0.1:9', graphUrl: 'http://127.0.0.1:9' };
  const file = (name: string, text: string) => {
    const f = path.join(dir, name);
    fs.writeFileSync(f, text);
    return f;
  };
  const startWith = (extra: Record<string, unknown>, args: string[] = [], env: Record<string, string> = {}) =>
    mailbridge(
      [
        'start',
        '--config',
        file(
          'start.json',
          JSON.stringify({ vendor, listen: { imapPort: 0, smtpPort: 0 }, ops: { port: null }, ...extra }),
        ),
        ...args,
      ],
      env,
    );
  const oneLine = (stderr: string) => {
    expect(stderr.trim().split('\n'), stderr).toHaveLength(1);
    return stderr.trim();
  };

  test('invalid JSON is placed by line and column', async () => {
    const bad = file('bad-json.json', '{\n  "vendor": {\n    "readUrl": "http://x",\n  }\n}\n');
    const res = await mailbridge(['start', '--config', bad]);
    expect(res.code).toBe(2);
    expect(oneLine(res.stderr)).toBe(
      `mailbridge: config file ${bad}, line 4 column 3: invalid JSON (Expected double-quoted property name); fix the file there`,
    );
  });

  test('a missing or an empty file', async () => {
    const missing = await mailbridge(['start', '--config', path.join(dir, 'nowhere.json')]);
    expect(missing.code).toBe(2);
    expect(oneLine(missing.stderr)).toMatch(/nowhere\.json does not exist: create it with "mailbridge setup"/);
    const empty = await mailbridge(['start', '--config', file('empty.json', '\n')]);
    expect(empty.code).toBe(2);
    expect(oneLine(empty.stderr)).toMatch(/empty\.json is empty: write the settings into it/);
  });

  test('a state directory that cannot be made: under a file, and under /proc (which Node would retry for ever)', async () => {
    const underFile = await startWith({ stateDir: path.join(dir, 'empty.json', 'state') });
    expect(underFile.code).toBe(2);
    expect(oneLine(underFile.stderr)).toContain(`${path.join(dir, 'empty.json')} is not a directory; set "stateDir"`);
    const proc = await startWith({ stateDir: '/proc/mailbridge-state' });
    expect(proc.code).toBe(2);
    expect(oneLine(proc.stderr)).toContain(
      'the state directory /proc/mailbridge-state cannot be created: /proc does not take new directories',
    );
  });

  test('a wrong number in the environment or a flag suggests a right one', async () => {
    const env = await startWith({}, [], { MAILBRIDGE_SMTP_PORT: 'abc' });
    expect(env.code).toBe(2);
    expect(oneLine(env.stderr)).toContain('set it to e.g. MAILBRIDGE_SMTP_PORT=1025 (the default)');
    const flag = await mailbridge(['demo', '--imap-port', 'abc'], { TMPDIR: dir });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain(
      "option '--imap-port <port>' argument 'abc' is invalid. it must be a port number from 0 to 65535, e.g. --imap-port 1143",
    );
    expect(flag.stderr).not.toMatch(/config\.json/);
  });

  test('a busy port names its setting, variable and flag', async () => {
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as net.AddressInfo;
    try {
      const res = await startWith({ stateDir: path.join(dir, 'busy-state') }, ['--imap-port', String(port)]);
      expect(res.code).toBe(2);
      expect(oneLine(res.stderr)).toBe(
        `mailbridge: the IMAP port 127.0.0.1:${port} is already in use by another program ("ss -ltnp" names it): stop it, or choose another port with listen.imapPort in the config, MAILBRIDGE_IMAP_PORT=PORT or --imap-port PORT`,
      );
    } finally {
      busy.close();
    }
  });

  test('configured TLS files that cannot be read are named, for start and cert export', async () => {
    const tls = { cert: path.join(dir, 'no-cert.pem'), key: path.join(dir, 'no-key.pem') };
    const started = await startWith({ tls, stateDir: path.join(dir, 'tls-state') });
    expect(started.code).toBe(2);
    expect(oneLine(started.stderr)).toBe(
      `mailbridge: config field "tls.cert": cannot read ${tls.cert} (no such file); point it at the certificate file, or remove "tls" to use the bridge's own certificate`,
    );
    const exported = await mailbridge([
      'cert',
      'export',
      '--config',
      file('tls.json', JSON.stringify({ vendor, tls, stateDir: path.join(dir, 'tls-state') })),
    ]);
    expect(exported.code).toBe(2);
    expect(oneLine(exported.stderr)).toContain(`cannot read ${tls.cert} (no such file)`);
  });

  test('a reader that stops early (status | head) ends the command quietly', async () => {
    const child = spawn(
      process.execPath,
      [
        '-r',
        'tsx/cjs',
        cliPath,
        'client-config',
        'generic',
        '--config',
        file(
          'pipe.json',
          JSON.stringify({
            vendor,
            accounts: [{ mailbox: 'ann@example.test' }],
            stateDir: path.join(dir, 'pipe-state'),
          }),
        ),
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    // closed before the process has even started: its first write meets a pipe nobody reads
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d;
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(stderr).not.toMatch(/EPIPE|Error/);
    expect(code).toBe(0);
  });

  test('without any configuration, a command says where one comes from', async () => {
    const res = await mailbridge(['status'], { MAILBRIDGE_CONFIG: '', TMPDIR: fs.mkdtempSync(path.join(dir, 'tmp-')) });
    expect(res.code).toBe(2);
    expect(oneLine(res.stderr)).toMatch(/no configuration: pass --config FILE \(a running demo prints its file/);
  });

  test('--version prints the package version', async () => {
    const res = await mailbridge(['--version']);
    expect(res.stdout.trim()).toBe(JSON.parse(fs.readFileSync('package.json', 'utf8')).version);
    expect(res.code).toBe(0);
  });
});
