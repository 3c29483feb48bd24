import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDovecot } from './dovecot';
import { daemonFor, mailbox, progress } from './imap';
import { imaptestBinary, imaptestMix, runImaptest } from './imaptest';
import { RawImap } from './raw-imap';
import { spawnSandbox } from './sandbox-process';

/**
 * Many sessions at once (issue 11), on a synced mailbox with 50 ms vendor latency
 * (BENCH_VENDOR_LATENCY_MS: 0 measures the bridge's own path apart from the vendor's latency):
 *  - a read-mostly mix (LOGIN, SELECT, FETCH metadata, FETCH BODY.PEEK[], STORE, STATUS, LIST,
 *    LOGOUT) with 5 and 20 sessions, bridge against Dovecot serving the same bytes: ops/s;
 *  - 50 sessions doing SELECT/FETCH/SEARCH/NOOP: SELECT latency percentiles, and the vendor
 *    requests per poll interval, against the same count with one session.
 *  - imaptest's stress mix without the states that add or remove messages (imaptest.ts), with as
 *    many clients as the mix's sessions, bridge against Dovecot: ops/s and errors; skipped, and
 *    said so, when no imaptest binary is on the machine.
 * Durations: BENCH_MIX_SECONDS (default 60, the imaptest runs too), BENCH_SELECT_SECONDS (default
 * 120; 0 skips the SELECT load); BENCH_MIX_SESSIONS (default 5,20) lists the mix's session counts
 * (empty: no mix, no Dovecot).
 */

interface Target {
  port: number;
  user: string;
  password: string;
}

interface Stats {
  requests: number;
  maxPerSecond: number;
  maxInFlight: number;
  rateLimited: number;
  commands: Record<string, number>;
}

/** A deterministic pseudo-random sequence, so both servers get the same operations. */
function sequence(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

function percentile(values: number[], p: number): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return +sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))].toFixed(1);
}

async function expectOk(raw: RawImap, command: string): Promise<number> {
  const r = await raw.command(command);
  if (r.status !== 'OK') throw new Error(`${command}: ${r.text}`);
  return r.ms;
}

type OpTimes = Map<string, number[]>;

function timed(times: OpTimes, op: string, ms: number): void {
  const list = times.get(op);
  if (list) list.push(ms);
  else times.set(op, [ms]);
}

/** One session of the mix: a full client visit, again and again until `until`. */
async function mixSession(
  target: Target,
  messages: number,
  seed: number,
  until: number,
  times: OpTimes,
): Promise<number> {
  const next = sequence(seed);
  const pick = () => 1 + Math.floor(next() * messages);
  let ops = 0;
  const op = async (name: string, raw: RawImap, command: string) => {
    timed(times, name, await expectOk(raw, command));
    ops++;
  };
  while (performance.now() < until) {
    const started = performance.now();
    const raw = await RawImap.login(target.port, target.user, target.password);
    timed(times, 'LOGIN', performance.now() - started);
    ops++;
    await op('SELECT', raw, 'SELECT INBOX');
    const from = pick();
    await op('FETCH metadata', raw, `FETCH ${from}:${Math.min(messages, from + 19)} (UID FLAGS ENVELOPE RFC822.SIZE)`);
    await op('FETCH body', raw, `FETCH ${pick()} BODY.PEEK[]`);
    await op('STORE', raw, `STORE ${pick()} ${next() < 0.5 ? '+' : '-'}FLAGS.SILENT (\\Flagged)`);
    await op('STATUS', raw, 'STATUS INBOX (MESSAGES UNSEEN UIDNEXT)');
    await op('LIST', raw, 'LIST "" "*"');
    const leaving = performance.now();
    await raw.logout();
    timed(times, 'LOGOUT', performance.now() - leaving);
    ops++;
  }
  return ops;
}

/** ops/s over all sessions, and each operation's latency in ms. */
async function mix(
  target: Target,
  messages: number,
  sessions: number,
  seconds: number,
): Promise<{ opsPerSecond: number; latencyMs: Record<string, { p50: number; p99: number; meanMs: number }> }> {
  const until = performance.now() + seconds * 1000;
  const times: OpTimes = new Map();
  const counts = await Promise.all(
    Array.from({ length: sessions }, (_, i) => mixSession(target, messages, i + 1, until, times)),
  );
  const latencyMs = Object.fromEntries(
    [...times].map(([name, ms]) => [
      name,
      {
        p50: percentile(ms, 50),
        p99: percentile(ms, 99),
        meanMs: +(ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(1),
      },
    ]),
  );
  return { opsPerSecond: +(counts.reduce((a, b) => a + b, 0) / seconds).toFixed(1), latencyMs };
}

/** SELECT/FETCH/SEARCH/NOOP in every session; returns each SELECT's latency. */
async function selectLoad(target: Target, messages: number, sessions: number, seconds: number): Promise<number[]> {
  const until = performance.now() + seconds * 1000;
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: sessions }, async (_, i) => {
      const next = sequence(1000 + i);
      let raw = await RawImap.login(target.port, target.user, target.password);
      let selects = 0;
      while (performance.now() < until) {
        // imap-core ends a connection after 1,000 SELECTs (WildDuck's abuse limit): reconnect first
        if (++selects % 900 === 0) {
          await raw.logout();
          raw = await RawImap.login(target.port, target.user, target.password);
        }
        latencies.push(await expectOk(raw, 'SELECT INBOX'));
        const from = 1 + Math.floor(next() * messages);
        await expectOk(raw, `FETCH ${from}:${Math.min(messages, from + 49)} (UID FLAGS ENVELOPE)`);
        await expectOk(raw, 'SEARCH UNSEEN');
        await expectOk(raw, 'NOOP');
      }
      await raw.logout();
    }),
  );
  return latencies;
}

export async function runSessionsBench(): Promise<Record<string, unknown>> {
  const mixSeconds = Number(process.env.BENCH_MIX_SECONDS ?? 60);
  const selectSeconds = Number(process.env.BENCH_SELECT_SECONDS ?? 120);
  const mixSessions = (process.env.BENCH_MIX_SESSIONS ?? '5,20').split(',').filter(Boolean).map(Number);
  const pollSeconds = 30;
  const vendorLatencyMs = Number(process.env.BENCH_VENDOR_LATENCY_MS ?? 50);
  // about 58% of the seeded corpus lands in INBOX: 17,400 messages give a 10,000-message folder
  const sandbox = await spawnSandbox({
    messages: Number(process.env.BENCH_SESSIONS_CORPUS ?? 17_400),
    latencyMs: vendorLatencyMs,
  });
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-bench-sessions-'));
  // the first poll is a full reconciliation, and later ones every 10th by default: a cost per
  // folder, not per session, which would land in one phase and not the other. Here only the
  // first is full, and it is over before anything is measured.
  const { daemon, port, client } = await daemonFor(sandbox, stateDir, pollSeconds, 10_000);
  const started = performance.now();
  const bridge: Target = { port, user: mailbox, password: daemon.password };
  const stats = () => sandbox.control<Stats>('GET', `/stats?mailbox=${encodeURIComponent(mailbox)}`);
  try {
    progress('sessions bench: first sync, then every message read once (attachments cached, bytes for Dovecot)');
    const c = await client();
    const messages = (await c.mailboxOpen('INBOX')).exists;
    const sources: Array<{ source: Buffer; flags: string[] }> = [];
    if (mixSessions.length) {
      for await (const m of c.fetch('1:*', { source: true, flags: true })) {
        sources.push({ source: m.source as Buffer, flags: [...(m.flags ?? [])] });
      }
    }
    await c.logout();
    const dovecot = mixSessions.length ? await startDovecot(sources, { ownMaildir: true }) : null;
    try {
      const mixes: Record<string, unknown> = {};
      for (const sessions of mixSessions) {
        if (!dovecot) break;
        const reference: Target = { port: dovecot.port, user: dovecot.user, password: dovecot.password };
        progress(`mix with ${sessions} sessions, ${mixSeconds} s each on the bridge and on Dovecot`);
        await sandbox.control('POST', '/stats/reset', {});
        const b = await mix(bridge, messages, sessions, mixSeconds);
        const vendor = await stats();
        const d = await mix(reference, messages, sessions, mixSeconds);
        mixes[`sessions${sessions}`] = {
          bridgeOpsPerSecond: b.opsPerSecond,
          dovecotOpsPerSecond: d.opsPerSecond,
          ratio: +(b.opsPerSecond / d.opsPerSecond).toFixed(2),
          vendor: {
            requests: vendor.requests,
            maxPerSecond: vendor.maxPerSecond,
            maxInFlight: vendor.maxInFlight,
            rateLimited: vendor.rateLimited,
          },
          bridgeLatencyMs: b.latencyMs,
          dovecotLatencyMs: d.latencyMs,
        };
      }

      const imaptest = imaptestBinary();
      const stressMixes: Record<string, unknown> = imaptest
        ? { parameters: imaptestMix.join(' ') }
        : { skipped: 'no imaptest binary (BENCH_IMAPTEST or imaptest on the PATH)' };
      if (!imaptest) progress('imaptest stress mix skipped: no imaptest binary (BENCH_IMAPTEST or PATH)');
      for (const clients of mixSessions) {
        if (!dovecot || !imaptest) break;
        const reference: Target = { port: dovecot.port, user: dovecot.user, password: dovecot.password };
        progress(`imaptest stress mix with ${clients} clients, ${mixSeconds} s each on the bridge and on Dovecot`);
        await sandbox.control('POST', '/stats/reset', {});
        const b = await runImaptest(imaptest, bridge, clients, mixSeconds);
        const vendor = await stats();
        const d = await runImaptest(imaptest, reference, clients, mixSeconds);
        stressMixes[`clients${clients}`] = {
          bridgeOpsPerSecond: b.opsPerSecond,
          dovecotOpsPerSecond: d.opsPerSecond,
          ratio: +(b.opsPerSecond / d.opsPerSecond).toFixed(2),
          bridgeErrors: b.errors,
          dovecotErrors: d.errors,
          firstErrors: [...b.firstErrors, ...d.firstErrors],
          vendor: { requests: vendor.requests, maxPerSecond: vendor.maxPerSecond, rateLimited: vendor.rateLimited },
          bridgeTotals: b.totals,
          dovecotTotals: d.totals,
          bridgeLastIntervalMs: b.lastIntervalMs,
          dovecotLastIntervalMs: d.lastIntervalMs,
        };
      }

      const perPoll = async (sessions: number, seconds: number) => {
        await sandbox.control('POST', '/stats/reset', {});
        const latencies = await selectLoad(bridge, messages, sessions, seconds);
        const s = await stats();
        return {
          sessions,
          seconds,
          selects: latencies.length,
          selectMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: percentile(latencies, 100) },
          vendorRequests: s.requests,
          vendorRequestsPerPollInterval: +((s.requests / seconds) * pollSeconds).toFixed(1),
          maxPerSecond: s.maxPerSecond,
          rateLimited: s.rateLimited,
          commands: s.commands,
        };
      };
      if (!selectSeconds) return { messages, vendorLatencyMs, mix: mixes, imaptest: stressMixes };
      const firstPollOver = started + (pollSeconds + 20) * 1000;
      if (performance.now() < firstPollOver) {
        progress('waiting for the first poll (a full reconciliation) to be over');
        await new Promise((r) => setTimeout(r, firstPollOver - performance.now()));
      }
      progress(`1 session, then 50 sessions, SELECT/FETCH/SEARCH/NOOP for ${selectSeconds} s each`);
      const one = await perPoll(1, selectSeconds);
      const fifty = await perPoll(50, selectSeconds);
      return { messages, vendorLatencyMs, mix: mixes, imaptest: stressMixes, selectLoad: { one, fifty } };
    } finally {
      await dovecot?.stop();
    }
  } finally {
    await daemon.stop();
    await sandbox.stop();
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
}
