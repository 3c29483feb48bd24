import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MessageStructureObject } from 'imapflow';
import { daemonFor, mailbox, progress } from './imap';
import { RawImap } from './raw-imap';
import { spawnSandbox } from './sandbox-process';

/**
 * "A click during a bulk download" (issue 11): one session downloads 500 message bodies
 * (`BODY.PEEK[]`, their attachments from the vendor's raw route) while another opens small
 * messages one at a time. Reported: the median time to the first byte of a click's answer,
 * idle and during the download, and their ratio (target at most 2). Every click opens a small
 * message with a small attachment nobody downloaded yet, so each click needs one vendor
 * request, which is where a first-come-first-served gate would queue it behind the bulk.
 */

const vendorLatencyMs = 50;
const clicksEach = 15;
const bulkSize = 500;

interface Candidate {
  uid: number;
  size: number;
  attachments: number;
}

function countAttachments(node: MessageStructureObject | undefined): number {
  if (!node) return 0;
  const own = node.disposition === 'attachment' || !/^(text|multipart|message)\//.test(node.type) ? 1 : 0;
  return own + (node.childNodes ?? []).reduce((n, c) => n + countAttachments(c), 0);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function clickTimes(raw: RawImap, uids: number[]): Promise<number[]> {
  const times: number[] = [];
  for (const uid of uids) {
    const r = await raw.command(`UID FETCH ${uid} BODY.PEEK[]`);
    if (r.status !== 'OK' || r.fetches !== 1) throw new Error(`click on ${uid} failed: ${r.text}`);
    times.push(Math.round(r.firstByteMs));
  }
  return times;
}

export async function runClickBench(): Promise<Record<string, unknown>> {
  const sandbox = await spawnSandbox({
    messages: Number(process.env.BENCH_CLICK_CORPUS ?? 3000),
    latencyMs: vendorLatencyMs,
  });
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-bench-click-'));
  const { daemon, port, client } = await daemonFor(sandbox, stateDir);
  try {
    progress('click bench: syncing INBOX');
    const c = await client();
    await c.mailboxOpen('INBOX');
    const candidates: Candidate[] = [];
    for await (const m of c.fetch('1:*', { uid: true, size: true, bodyStructure: true }, { uid: true }))
      candidates.push({ uid: m.uid, size: m.size ?? 0, attachments: countAttachments(m.bodyStructure) });
    await c.logout();
    const withFiles = candidates.filter((m) => m.attachments > 0);
    const clicks = [...withFiles].sort((a, b) => a.size - b.size).slice(0, 2 * clicksEach);
    const clicked = new Set(clicks.map((m) => m.uid));
    const bulk = [...withFiles, ...candidates.filter((m) => m.attachments === 0)]
      .filter((m) => !clicked.has(m.uid))
      .slice(0, bulkSize);
    if (clicks.length < 2 * clicksEach || bulk.length < bulkSize)
      throw new Error('corpus too small for the click bench');

    const reader = await RawImap.login(port, mailbox, daemon.password);
    const clicker = await RawImap.login(port, mailbox, daemon.password);
    await reader.command('EXAMINE INBOX');
    await clicker.command('EXAMINE INBOX');
    progress('click bench: idle clicks');
    const idle = await clickTimes(
      clicker,
      clicks.slice(0, clicksEach).map((m) => m.uid),
    );

    await sandbox.control('POST', '/stats/reset', {});
    progress(`click bench: ${bulkSize} bodies downloading, clicks meanwhile`);
    const bulkStart = performance.now();
    const download = reader.command(`UID FETCH ${bulk.map((m) => m.uid).join(',')} BODY.PEEK[]`);
    // the download is under way (its first answers have streamed) before the first click
    for (let i = 0; i < 200; i++) {
      const { rawDownloads } = await sandbox.control<{ rawDownloads: number }>(
        'GET',
        `/stats?mailbox=${encodeURIComponent(mailbox)}`,
      );
      if (rawDownloads >= 20) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const busy = await clickTimes(
      clicker,
      clicks.slice(clicksEach).map((m) => m.uid),
    );
    const downloaded = await download;
    const bulkSeconds = (performance.now() - bulkStart) / 1000;
    if (downloaded.status !== 'OK' || downloaded.fetches !== bulk.length)
      throw new Error(`bulk download failed: ${downloaded.text}`);
    const stats = await sandbox.control<Record<string, number>>('GET', `/stats?mailbox=${encodeURIComponent(mailbox)}`);
    await reader.logout();
    await clicker.logout();
    const idleMs = median(idle);
    const busyMs = median(busy);
    return {
      vendorLatencyMs,
      bulk: {
        messages: bulk.length,
        mb: +(downloaded.bytes / 1e6).toFixed(1),
        seconds: +bulkSeconds.toFixed(1),
        vendorRequests: stats.requests,
        rawDownloads: stats.rawDownloads,
        maxPerSecond: stats.maxPerSecond,
        rateLimited: stats.rateLimited,
      },
      clickFirstByteMs: {
        idle,
        duringBulk: busy,
        idleMedian: idleMs,
        duringBulkMedian: busyMs,
        idleMax: Math.max(...idle),
        duringBulkMax: Math.max(...busy),
      },
      ratio: +(busyMs / idleMs).toFixed(2),
      target: 2,
    };
  } finally {
    await daemon.stop();
    await sandbox.stop();
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
}
