import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port';

/**
 * A private Debian dovecot-imapd on loopback, for the bench (the same bytes as the bridge
 * serves, timed) and the conformance suite (the same exchanges, compared). Everything lives
 * under one temporary directory: config, Maildir, state, logs and sockets. No system service
 * is used or touched; `stop` ends the one process started here and removes the directory.
 */
export interface Dovecot {
  port: number;
  user: string;
  password: string;
  maildir: string;
  stop(): Promise<void>;
}

/** The folders the bridge's sandbox vendor has, with the SPECIAL-USE the bridge gives them. */
const specialUse: Record<string, string> = {
  Drafts: '\\Drafts',
  Sent: '\\Sent',
  Trash: '\\Trash',
  Spam: '\\Junk',
  Archive: '\\Archive',
};

export function dovecotBinary(): string | null {
  for (const p of ['/usr/sbin/dovecot', '/usr/local/sbin/dovecot']) if (fs.existsSync(p)) return p;
  return null;
}

/** Whether a server greets on the port (one attempt, bounded by a socket timeout). */
function greets(port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
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
}

function config(
  root: string,
  maildir: string,
  port: number,
  uid: string,
  gid: string,
  options: DovecotOptions,
): string {
  const mailboxes = Object.entries(specialUse)
    .map(([name, use]) => `  mailbox ${name} {\n    auto = subscribe\n    special_use = ${use}\n  }`)
    .join('\n');
  return [
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
    // any user name, one password
    'passdb {\n  driver = static\n  args = password=dovecot\n}',
    `userdb {\n  driver = static\n  args = uid=${uid} gid=${gid} home=${root}/home\n}`,
    // "/" as the hierarchy separator, as the bridge's Labels/<name> folders use
    `mail_location = maildir:${maildir}:LAYOUT=fs`,
    ...(options.ownMaildir ? ['maildir_very_dirty_syncs = yes'] : []),
    // Dovecot offers NOTIFY (RFC 5465) only with its notify plugin loaded
    ...(options.notify ? ['mail_plugins = $mail_plugins notify'] : []),
    `namespace inbox {\n  inbox = yes\n  separator = /\n${mailboxes}\n}`,
    `service imap-login {\n  inet_listener imap {\n    address = 127.0.0.1\n    port = ${port}\n  }\n}`,
    'service stats {\n  unix_listener stats-writer {\n    mode = 0666\n  }\n}',
    // the sessions bench opens 50 connections as one user from one address
    'protocol imap {\n  mail_max_userip_connections = 200\n}',
    '',
  ].join('\n');
}

/**
 * Starts Dovecot with `inbox` written straight into the INBOX Maildir (fast for large
 * corpora; INTERNALDATE is then the file time). Folders and keywords are loaded through IMAP
 * by the caller when they matter.
 */
export interface DovecotOptions {
  /**
   * Dovecot is the maildir's only writer once started: it need not rescan a 10,000-file
   * directory after every flag change (Dovecot's advice for large Maildirs), so a benchmark
   * meets Dovecot at its best. It also changes LIST's \Marked/\UnMarked, so the
   * conformance suite keeps the default.
   */
  ownMaildir?: boolean;
  /** Loads the notify plugin, so that Dovecot offers NOTIFY (the conformance cases of RFC 5465). */
  notify?: boolean;
}

export async function startDovecot(
  inbox: Array<{ source: Buffer; flags: string[] }> = [],
  options: DovecotOptions = {},
): Promise<Dovecot> {
  const bin = dovecotBinary();
  if (!bin) throw new Error('dovecot-imapd is not installed: apt-get install -y --no-install-recommends dovecot-imapd');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-dovecot-'));
  const maildir = path.join(root, 'Maildir');
  for (const d of ['cur', 'new', 'tmp']) fs.mkdirSync(path.join(maildir, d), { recursive: true });
  inbox.forEach((m, i) => {
    const info = m.flags.includes('\\Seen') ? 'S' : '';
    fs.writeFileSync(path.join(maildir, 'cur', `${1_600_000_000 + i}.M${i}P1.bench:2,${info}`), m.source);
  });
  const port = await freePort();
  // dovecot refuses to run its login and mail processes as root: the package's own users
  const id = (flag: string) => execFileSync('id', [flag, 'dovecot']).toString().trim();
  const [uid, gid] = [id('-u'), id('-g')];
  execFileSync('chown', ['-R', `${uid}:${gid}`, root]);
  const conf = path.join(root, 'dovecot.conf');
  fs.writeFileSync(conf, config(root, maildir, port, uid, gid, options));
  // INTERNALDATE is written in the server's zone: UTC, as the bridge writes it
  const child: ChildProcess = spawn(bin, ['-F', '-c', conf], { stdio: 'inherit', env: { ...process.env, TZ: 'UTC' } });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // a test process that ends without stop() (a crash, a killed worker) takes its Dovecot along
  const orphanGuard = () => child.kill('SIGTERM');
  process.once('exit', orphanGuard);
  const stop = async () => {
    process.off('exit', orphanGuard);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    fs.rmSync(root, { recursive: true, force: true });
  };
  let up = false;
  for (let i = 0; i < 100 && !up && child.exitCode === null; i++) {
    up = await greets(port);
    if (!up) await new Promise((r) => setTimeout(r, 100));
  }
  if (!up) {
    const log = fs.existsSync(path.join(root, 'dovecot.log'))
      ? fs.readFileSync(path.join(root, 'dovecot.log'), 'utf8')
      : '';
    await stop();
    throw new Error(`dovecot did not start: ${log.slice(-2000)}`);
  }
  return { port, user: 'mailbridge', password: 'dovecot', maildir, stop };
}
