import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import { parseConfig } from '../src/config';
import { createLogger } from '../src/log';
import { startBridge, type RunningBridge } from '../src/bridge';
import { spawnSandbox, type SandboxProcess } from './sandbox-process';
import { startDovecot } from './dovecot';
import { startDaemon } from './daemon-process';

/**
 * IMAP benchmark (issue 3):
 *  - cold `SELECT INBOX` + `UID FETCH 1:* (FLAGS ENVELOPE BODYSTRUCTURE RFC822.SIZE)` on a
 *    large sandbox folder with 50 ms vendor latency: vendor requests and time against the
 *    minimum the vendor limits allow;
 *  - the same fetch warm (zero vendor requests expected), beside Dovecot serving the same bytes;
 *  - RSS after syncing a 100,000-message mailbox.
 */

const mailbox = 'alice@sandbox.test';
const perRequest = { commands: 20, ids: 50, ratePerSecond: 15, threadsPerPage: 100 };

interface Stats {
  requests: number;
  maxPerSecond: number;
  maxInFlight: number;
  rateLimited: number;
}

async function bridgeFor(sandbox: SandboxProcess): Promise<{ bridge: RunningBridge; client: () => Promise<ImapFlow>; cleanup: () => Promise<void> }> {
  const tokens = await sandbox.control<{ access_token: string; refresh_token: string }>('POST', '/tokens', { mailbox });
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-bench-'));
  const config = parseConfig({
    vendor: { readUrl: sandbox.urls.read, mailUrl: sandbox.urls.mail, graphUrl: sandbox.urls.graph, apiKey: sandbox.apiKey },
    accounts: [{ mailbox, accessToken: tokens.access_token, refreshToken: tokens.refresh_token }],
    listen: { host: '127.0.0.1', imapPort: 0, smtpPort: 0 },
    stateDir,
    pollIntervalSeconds: 86_400,
    logLevel: 'warn',
  });
  const bridge = await startBridge(config, createLogger('warn'));
  const password = bridge.secrets.setBridgePassword(mailbox);
  const client = async () => {
    const c = new ImapFlow({ host: '127.0.0.1', port: bridge.ports.imap, secure: false, doSTARTTLS: false, auth: { user: mailbox, pass: password }, logger: false });
    await c.connect();
    return c;
  };
  return {
    bridge,
    client,
    cleanup: async () => {
      await bridge.close();
      fs.rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

const progress = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

async function timedFetch(client: ImapFlow): Promise<{ ms: number; count: number }> {
  const start = performance.now();
  let count = 0;
  for await (const _ of client.fetch('1:*', { uid: true, flags: true, envelope: true, bodyStructure: true, size: true }, { uid: true })) count++;
  return { ms: performance.now() - start, count };
}

async function coldAndWarm(messages: number): Promise<Record<string, unknown>> {
  const sandbox = await spawnSandbox({ messages, latencyMs: 50 });
  const { bridge, client, cleanup } = await bridgeFor(sandbox);
  try {
    const dump = await sandbox.control<{ messages: Array<{ thread_id: string }> }>('GET', `/messages?mailbox=${encodeURIComponent(mailbox)}&folder=INBOX`);
    const folderMessages = dump.messages.length;
    const threads = new Set(dump.messages.map((m) => m.thread_id)).size;
    const minRequests = Math.ceil(threads / perRequest.threadsPerPage) + Math.ceil(folderMessages / (perRequest.commands * perRequest.ids));
    const minSeconds = minRequests / perRequest.ratePerSecond;

    progress(`INBOX holds ${folderMessages} messages in ${threads} threads; cold SELECT + FETCH`);
    const c = await client();
    await sandbox.control('POST', '/stats/reset', {});
    const coldStart = performance.now();
    await c.mailboxOpen('INBOX');
    const cold = await timedFetch(c);
    const coldMs = performance.now() - coldStart;
    const coldStats = await sandbox.control<Stats>('GET', `/stats?mailbox=${encodeURIComponent(mailbox)}`);

    await sandbox.control('POST', '/stats/reset', {});
    const warm = await timedFetch(c);
    const warmStats = await sandbox.control<Stats>('GET', `/stats?mailbox=${encodeURIComponent(mailbox)}`);

    progress('warm fetch done; exporting the same bytes to Dovecot');
    // the same bytes in Dovecot
    const sources: Array<{ source: Buffer; flags: string[] }> = [];
    for await (const m of c.fetch('1:*', { source: true, flags: true }, { uid: true })) sources.push({ source: m.source as Buffer, flags: [...(m.flags ?? [])] });
    await c.logout();
    const dovecot = await startDovecot(sources);
    let dovecotWarm = { ms: Number.NaN, count: 0 };
    try {
      const d = new ImapFlow({ host: '127.0.0.1', port: dovecot.port, secure: false, doSTARTTLS: false, auth: { user: dovecot.user, pass: dovecot.password }, logger: false });
      await d.connect();
      await d.mailboxOpen('INBOX');
      await timedFetch(d); // builds Dovecot's index and cache
      dovecotWarm = await timedFetch(d);
      await d.logout();
    } finally {
      await dovecot.stop();
    }

    return {
      folder: { messages: folderMessages, threads, count: cold.count },
      cold: {
        vendorRequests: coldStats.requests,
        minRequests,
        requestRatio: +(coldStats.requests / minRequests).toFixed(3),
        seconds: +(coldMs / 1000).toFixed(2),
        minSeconds: +minSeconds.toFixed(2),
        timeRatio: +(coldMs / 1000 / minSeconds).toFixed(3),
        maxPerSecond: coldStats.maxPerSecond,
        maxInFlight: coldStats.maxInFlight,
        rateLimited: coldStats.rateLimited,
      },
      warm: { vendorRequests: warmStats.requests, ms: Math.round(warm.ms), count: warm.count },
      dovecotWarm: { ms: Math.round(dovecotWarm.ms), count: dovecotWarm.count, bridgeOverDovecot: +(warm.ms / dovecotWarm.ms).toFixed(2) },
      bridgeRssMb: Math.round(process.memoryUsage().rss / 1e6),
      pollers: bridge.pollers.length,
    };
  } finally {
    await cleanup();
    await sandbox.stop();
  }
}

/** RSS of the bridge daemon itself (compiled, its own process) after syncing every folder. */
async function rssAfterSync(messages: number): Promise<Record<string, unknown>> {
  const sandbox = await spawnSandbox({ messages, latencyMs: 0 });
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-bench-rss-'));
  try {
    const tokens = await sandbox.control<{ access_token: string; refresh_token: string }>('POST', '/tokens', { mailbox });
    const configFile = path.join(stateDir, 'config.json');
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    fs.writeFileSync(
      configFile,
      JSON.stringify({
        vendor: { readUrl: sandbox.urls.read, mailUrl: sandbox.urls.mail, graphUrl: sandbox.urls.graph, apiKey: sandbox.apiKey },
        accounts: [{ mailbox, accessToken: tokens.access_token, refreshToken: tokens.refresh_token }],
        listen: { host: '127.0.0.1', imapPort: port, smtpPort: port + 1 },
        stateDir: path.join(stateDir, 'state'),
        pollIntervalSeconds: 86_400,
        logLevel: 'warn',
      }),
    );
    const bridge = await startDaemon(configFile, port);
    try {
      const c = new ImapFlow({ host: '127.0.0.1', port, secure: false, doSTARTTLS: false, auth: { user: mailbox, pass: bridge.password }, logger: false });
      await c.connect();
      progress(`syncing every folder of a ${messages}-message mailbox`);
      const start = performance.now();
      let synced = 0;
      for (const folder of await c.list()) synced += (await c.mailboxOpen(folder.path)).exists;
      const seconds = +((performance.now() - start) / 1000).toFixed(1);
      await c.logout();
      return { messagesSynced: synced, seconds, bridgeRssMb: bridge.rssMb() };
    } finally {
      await bridge.stop();
    }
  } finally {
    await sandbox.stop();
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
}

export async function runImapBench(): Promise<Record<string, unknown>> {
  // about 58% of the seeded corpus lands in INBOX: 17,400 messages give a 10,000-message folder
  const folderSize = Number(process.env.BENCH_IMAP_CORPUS ?? 17_400);
  const rssSize = Number(process.env.BENCH_RSS_MESSAGES ?? 100_000);
  const fetchResult = folderSize > 0 ? await coldAndWarm(folderSize) : null;
  const rss = rssSize > 0 ? await rssAfterSync(rssSize) : null;
  return { fetch: fetchResult, rssAfterSync: rss };
}
