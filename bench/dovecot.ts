import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * Debian's dovecot-imapd on loopback, serving a Maildir the bench fills with the very bytes
 * the bridge serves, so warm FETCH times compare like with like.
 */
export interface Dovecot {
  port: number;
  user: string;
  password: string;
  maildir: string;
  stop(): Promise<void>;
}

function binary(): string | null {
  for (const p of ['/usr/sbin/dovecot', '/usr/local/sbin/dovecot']) if (fs.existsSync(p)) return p;
  return null;
}

export function ensureDovecotInstalled(): string {
  const existing = binary();
  if (existing) return existing;
  execFileSync('apt-get', ['install', '-y', '-qq', 'dovecot-imapd'], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  const installed = binary();
  if (!installed) throw new Error('dovecot-imapd did not install');
  // the package starts a system instance on port 143; the bench runs its own on a free port
  try {
    execFileSync('sh', ['-c', 'pkill -x dovecot || true']);
  } catch {
    // nothing to stop
  }
  return installed;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startDovecot(messages: Array<{ source: Buffer; flags: string[] }>): Promise<Dovecot> {
  const bin = ensureDovecotInstalled();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-dovecot-'));
  const maildir = path.join(root, 'Maildir');
  for (const d of ['cur', 'new', 'tmp']) fs.mkdirSync(path.join(maildir, d), { recursive: true });
  messages.forEach((m, i) => {
    const info = m.flags.includes('\\Seen') ? 'S' : '';
    fs.writeFileSync(path.join(maildir, 'cur', `${1_600_000_000 + i}.M${i}P1.bench:2,${info}`), m.source);
  });
  const port = await freePort();
  // dovecot refuses to run its login and mail processes as root: use the package's own users
  const ids = (name: string) =>
    `${execFileSync('id', ['-u', name]).toString().trim()}:${execFileSync('id', ['-g', name]).toString().trim()}`;
  const [uid, gid] = ids('dovecot').split(':');
  execFileSync('chown', ['-R', `${uid}:${gid}`, root]);
  const conf = path.join(root, 'dovecot.conf');
  fs.writeFileSync(
    conf,
    [
      'protocols = imap',
      'listen = 127.0.0.1',
      `base_dir = ${root}/run`,
      `state_dir = ${root}/state`,
      `log_path = ${root}/dovecot.log`,
      'ssl = no',
      'disable_plaintext_auth = no',
      'auth_mechanisms = plain login',
      'first_valid_uid = 0',
      'default_internal_user = dovecot',
      'default_login_user = dovenull',
      'passdb {\n  driver = static\n  args = password=bench\n}',
      `userdb {\n  driver = static\n  args = uid=${uid} gid=${gid} home=${root}/home\n}`,
      `mail_location = maildir:${maildir}`,
      `service imap-login {\n  inet_listener imap {\n    address = 127.0.0.1\n    port = ${port}\n  }\n}`,
      'service stats {\n  unix_listener stats-writer {\n    mode = 0666\n  }\n}',
      // the sessions bench opens 50 connections as one user from one address
      'protocol imap {\n  mail_max_userip_connections = 200\n}',
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(bin, ['-F', '-c', conf], { stdio: 'inherit' });
  let up = false;
  for (let i = 0; i < 100 && !up; i++) {
    up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.setTimeout(1000, () => {
        s.destroy();
        resolve(false);
      });
      s.once('data', (d) => {
        s.destroy();
        resolve(d.toString().startsWith('* OK'));
      });
      s.once('error', () => resolve(false));
    });
    if (!up) await new Promise((r) => setTimeout(r, 100));
  }
  if (!up) {
    child.kill('SIGTERM');
    throw new Error(`dovecot did not start; see ${root}/dovecot.log`);
  }
  return {
    port,
    user: 'bench',
    password: 'bench',
    maildir,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => {
          fs.rmSync(root, { recursive: true, force: true });
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
