import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Daemon } from './daemon-process';
import { daemonFor, mailbox } from './imap';
import { RawImap } from './raw-imap';
import { spawnSandbox } from './sandbox-process';

/**
 * `npm run stress`: the hostile and heavy loads of issue 13 against the compiled daemon in
 * its own process, on loopback, with the figures as JSON on stdout and in
 * bench/results/stress.json. Every phase is bounded in time and bytes.
 */

const mb = 1024 * 1024;

/** Writes `total` bytes of `fill` as fast as the socket takes them; stops when the server closes. */
async function flood(port: number, head: string, total: number): Promise<{ sent: number; answer: string }> {
  const socket = net.connect(port, '127.0.0.1');
  let answer = '';
  socket.on('data', (d: Buffer) => {
    answer += d.toString('latin1');
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  let open = true;
  void closed.then(() => {
    open = false;
  });
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(head);
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let sent = 0;
  while (open && sent < total) {
    sent += chunk.length;
    if (!socket.write(chunk)) await Promise.race([new Promise((r) => socket.once('drain', r)), closed]);
  }
  socket.destroy();
  return { sent, answer: answer.split('\r\n').slice(0, 3).join(' | ') };
}

async function preLoginAttacks(daemon: Daemon, port: number) {
  const before = daemon.rssMb();
  const line = await flood(port, '', 100 * mb);
  const afterLine = { rssMb: daemon.rssMb(), peakRssMb: daemon.peakRssMb() };
  const appends = await Promise.all(
    Array.from({ length: 20 }, (_, i) => flood(port, `a${i} APPEND INBOX {26214400}\r\n`, 25 * mb)),
  );
  return {
    rssBeforeMb: before,
    longLine: { bytesSentBeforeDisconnect: line.sent, answer: line.answer, ...afterLine },
    appendBeforeLogin: {
      connections: appends.length,
      continuationsGiven: appends.filter((a) => /^\+ /m.test(a.answer)).length,
      answer: appends[0].answer,
      mostBytesSent: Math.max(...appends.map((a) => a.sent)),
      rssMb: daemon.rssMb(),
      peakRssMb: daemon.peakRssMb(),
    },
  };
}

async function concurrentLogins(daemon: Daemon, port: number) {
  const watcher = await RawImap.login(port, mailbox, daemon.password);
  const noops: number[] = [];
  let running = true;
  const watch = (async () => {
    while (running) {
      noops.push((await watcher.command('NOOP')).ms);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const started = performance.now();
  const sessions = await Promise.all(Array.from({ length: 200 }, () => RawImap.login(port, mailbox, daemon.password)));
  const loginsMs = performance.now() - started;
  running = false;
  await watch;
  await Promise.all([...sessions, watcher].map((s) => s.logout()));
  const sorted = [...noops].sort((a, b) => a - b);
  return {
    logins: sessions.length,
    allLoggedInMs: Math.round(loginsMs),
    noopsDuring: noops.length,
    noopMedianMs: Number(sorted[Math.floor(sorted.length / 2)].toFixed(1)),
    noopMaxMs: Number(sorted[sorted.length - 1].toFixed(1)),
  };
}

/** The guessing peer: another loopback address, so the throttle it earns does not slow the other phases. */
const attacker = '127.0.0.2';

/**
 * 20 connections from one address guessing as fast as they are answered, for `seconds`;
 * answers still queued at the end are not counted. A connection the server drops (its
 * login timeout) is replaced.
 */
async function wrongPasswords(port: number, seconds: number) {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let tries = 0;
  const open = new Set<RawImap>();
  const worker = async () => {
    while (performance.now() < deadline) {
      const s = await RawImap.connect(port, attacker);
      open.add(s);
      try {
        while (performance.now() < deadline) {
          await s.tryLogin(mailbox, 'not-the-password');
          if (performance.now() < deadline) tries++;
        }
      } catch {
        // dropped by the server: connect again
      }
      open.delete(s);
    }
  };
  const workers = Promise.all(Array.from({ length: 20 }, worker));
  await Promise.race([workers, new Promise((r) => setTimeout(r, seconds * 1000))]);
  for (const s of open) s.close();
  await workers;
  return { connections: 20, tries, seconds, perSecond: Number((tries / seconds).toFixed(1)) };
}

async function shutdownWithClients(daemon: Daemon, port: number) {
  const idle = await Promise.all(Array.from({ length: 10 }, () => RawImap.login(port, mailbox, daemon.password)));
  const started = performance.now();
  await daemon.stop();
  for (const s of idle) await s.logout();
  return { idleClients: idle.length, exitedAfterMs: Math.round(performance.now() - started) };
}

/** Runs one phase, saying on stderr which one is running. */
async function phase<T>(name: string, run: () => Promise<T>): Promise<T> {
  process.stderr.write(`stress: ${name}\n`);
  return run();
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-stress-'));
  const sandbox = await spawnSandbox({ messages: 200, latencyMs: 0 });
  try {
    const { daemon, port } = await daemonFor(sandbox, dir);
    const report = {
      date: new Date().toISOString(),
      node: process.version,
      preLogin: await phase('pre-login attacks', () => preLoginAttacks(daemon, port)),
      concurrentLogins: await phase('200 concurrent logins', () => concurrentLogins(daemon, port)),
      // after the logins: a good login clears a peer's failure count
      wrongPasswordsOnePeer: await phase('wrong passwords', () => wrongPasswords(port, 10)),
      peakRssMb: daemon.peakRssMb(),
      shutdown: await phase('shutdown', () => shutdownWithClients(daemon, port)),
    };
    const text = JSON.stringify(report, null, 2);
    process.stdout.write(`${text}\n`);
    const out = path.join(__dirname, 'results');
    fs.mkdirSync(out, { recursive: true });
    fs.writeFileSync(path.join(out, 'stress.json'), text);
  } finally {
    await sandbox.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`stress failed: ${err instanceof Error ? err.stack : err}\n`);
    process.exit(1);
  },
);
