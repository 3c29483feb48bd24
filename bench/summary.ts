/**
 * The headline figures of a bench report as one Markdown table, with the date and commit they
 * were measured at (issue 27): CPU per synced message, time and requests against the vendor's
 * floors, peak and resting RSS, and the ratios against Dovecot (warm FETCH by the raw client and
 * by imapflow, SORT, THREAD, non-ASCII SEARCH, QRESYNC SELECT). Parts that did not run are left out.
 */

type Json = Record<string, unknown> | undefined;

const at = (value: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), value);

function coldRow(label: string, cold: Json): string[] {
  if (!cold) return [];
  return [
    `| ${label}: bridge CPU per synced message | ${cold.bridgeCpuMsPerMessage} ms (${at(cold, 'selectCpuSeconds', 'bridge')} s) | < 0.3 ms |`,
    `| ${label}: time against the sliding-window floor (${cold.downloads} message/* downloads among its requests; ${cold.chainedMinSeconds} s without them) | ${cold.seconds} s / ${cold.minSeconds} s = ${cold.timeRatio}x | <= 1.1x |`,
    `| ${label}: time against the floor of a client counting each request until a second after its answer began | ${cold.seconds} s / ${cold.answeredMinSeconds} s = ${cold.answeredTimeRatio}x | measured |`,
    `| ${label}: vendor requests against the floor (downloads included) | ${cold.vendorRequests} / ${cold.minRequests} = ${cold.requestRatio}x, ${cold.rateLimited} rate-limited | <= 1.2x, 0 |`,
  ];
}

/** A command timed on the bridge and on Dovecot holding the same bytes, with the bridge's vendor requests. */
function againstDovecotRow(label: string, m: Json): string {
  const dovecot = at(m, 'dovecot', 'ms') ?? 'n/a';
  const first =
    m?.firstMs === undefined ? '' : `; first run ${m.firstMs} ms / ${at(m, 'dovecot', 'firstMs') ?? 'n/a'} ms`;
  // without Dovecot (BENCH_DOVECOT=0) there is no ratio, not a ratio of n/a
  const ratio = m?.bridgeOverDovecot == null ? 'n/a' : `${m.bridgeOverDovecot}x`;
  return `| ${label} against Dovecot | ${m?.ms} ms / ${dovecot} ms = ${ratio} time, ${m?.vendorRequests} vendor requests${first} | <= 1.0x, 0 |`;
}

export function summaryTable(report: Record<string, unknown>): string {
  const rows: string[] = [];
  const fetch = at(report, 'imap', 'fetch') as Json;
  rows.push(...coldRow('cold sync', fetch?.cold as Json));
  rows.push(...coldRow('cold sync, MAILBRIDGE_DESCRIBE_WORKERS=0', at(report, 'imap', 'coldInlineDescribe') as Json));
  const orderings = (fetch?.orderings ?? {}) as Record<string, Json>;
  for (const [command, o] of Object.entries(orderings)) rows.push(againstDovecotRow(`warm \`${command}\``, o));
  const imapflow = at(fetch, 'warm', 'imapflowMs');
  const dovecotImapflow = at(fetch, 'dovecotWarm', 'imapflowMs');
  if (typeof imapflow === 'number') {
    // without Dovecot (BENCH_DOVECOT=0) its time is NaN, or null once read back from JSON
    const ran = typeof dovecotImapflow === 'number' && Number.isFinite(dovecotImapflow);
    const ratio = ran ? `${(imapflow / dovecotImapflow).toFixed(2)}x` : 'n/a';
    rows.push(
      `| warm imapflow \`fetch('1:*', {uid, flags, envelope, bodyStructure, size})\`, its parsing included, against Dovecot | ${imapflow} ms / ${ran ? dovecotImapflow : 'n/a'} ms = ${ratio} time | <= 1.0x |`,
    );
  }
  const qresync = fetch?.qresyncSelectAfterExpunges as Json;
  if (qresync)
    rows.push(
      againstDovecotRow(`\`SELECT INBOX (QRESYNC (uidvalidity modseq))\` after ${qresync.expunged} expunges`, qresync),
    );
  const rss = at(report, 'imap', 'rssAfterSync') as Json;
  if (rss)
    rows.push(
      `| ${rss.messagesSynced}-message sync: peak / resting RSS | ${rss.peakRssMb} MB / ${rss.restingRssMb} MB (${rss.seconds} s; idle ${rss.idleRssMb} MB, ${rss.restingBytesPerMessage} bytes a message at rest) | < 300 MB / < 200 MB |`,
    );
  const mixes = (at(report, 'sessions', 'mix') ?? {}) as Record<string, Json>;
  const latency = `vendor latency ${at(report, 'sessions', 'vendorLatencyMs')} ms`;
  for (const [key, m] of Object.entries(mixes))
    rows.push(
      `| read-mostly mix, ${key.replace('sessions', '')} sessions, ${latency}, against Dovecot | ${m?.bridgeOpsPerSecond} / ${m?.dovecotOpsPerSecond} ops/s = ${m?.ratio}x; STORE mean ${at(m, 'bridgeLatencyMs', 'STORE', 'meanMs')} / ${at(m, 'dovecotLatencyMs', 'STORE', 'meanMs')} ms | >= 1.0x |`,
    );
  const stress = (at(report, 'sessions', 'imaptest') ?? {}) as Record<string, Json | string>;
  if (typeof stress.skipped === 'string')
    rows.push(`| imaptest stress mix against Dovecot | skipped: ${stress.skipped} | >= 1.0x |`);
  for (const [key, m] of Object.entries(stress))
    if (key.startsWith('clients') && typeof m === 'object')
      rows.push(
        `| imaptest stress mix (${stress.parameters}), ${key.replace('clients', '')} clients, ${latency}, against Dovecot | ${m?.bridgeOpsPerSecond} / ${m?.dovecotOpsPerSecond} ops/s = ${m?.ratio}x, ${m?.bridgeErrors} errors; STORE mean ${at(m, 'bridgeLastIntervalMs', 'Stor')} / ${at(m, 'dovecotLastIntervalMs', 'Stor')} ms (last interval) | >= 1.0x, 0 errors |`,
      );
  rows.push(...otherRows(report));
  return [
    `Measured ${report.date} at commit ${report.commit} (node ${report.node}).`,
    '',
    '| measure | result | target |',
    '|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

/** The rows of the benches beyond IMAP sync and the mix: SELECT under load, SMTP, a click, scale, several nodes. */
function otherRows(report: Record<string, unknown>): string[] {
  const rows: string[] = [];
  const select = at(report, 'sessions', 'selectLoad') as Json;
  for (const load of [select?.one, select?.fifty] as Json[])
    if (load)
      rows.push(
        `| SELECT/FETCH/SEARCH/NOOP loop, ${load.sessions} session(s): SELECT p50 / p99; vendor requests per poll interval | ${at(load, 'selectMs', 'p50')} / ${at(load, 'selectMs', 'p99')} ms; ${load.vendorRequestsPerPollInterval}, ${load.rateLimited} rate-limited | p99 < 100 ms; flat in sessions |`,
      );
  const smtp = report.smtp as Json;
  if (smtp)
    rows.push(
      `| SMTP: bridge time per ${Math.round(Number(smtp.messageBytes) / 1000)} KB message beyond the vendor's | median ${at(smtp, 'bridgeOverheadMs', 'median')} ms, p99 ${at(smtp, 'bridgeOverheadMs', 'p99')} ms | measured |`,
    );
  const click = report.clickDuringBulkDownload as Json;
  if (click)
    rows.push(
      `| a click during a bulk download (${at(click, 'bulk', 'messages')} bodies, ${at(click, 'bulk', 'mb')} MB): first byte, idle / during | ${at(click, 'clickFirstByteMs', 'idleMedian')} / ${at(click, 'clickFirstByteMs', 'duringBulkMedian')} ms = ${click.ratio}x; ${at(click, 'bulk', 'rateLimited')} rate-limited | <= 2x, 0 |`,
    );
  const sandbox = at(report, 'scale', 'sandbox') as Json;
  if (sandbox)
    rows.push(
      `| scale: sandbox start with ${at(report, 'scale', 'messages')} messages; 10 list pages + 1,000 messages | ${sandbox.startMs} ms; ${sandbox.tenPagesAnd1000MessagesMs} ms | < 5,000 ms; < 2,000 ms |`,
    );
  const store = at(report, 'scale', 'uidStore') as Json;
  if (store)
    rows.push(
      `| scale: UID store, one folder: assign, no-op re-assign, cold list, folder state, lookup of all | ${store.assignUidsMs}, ${store.reassignNoopMs}, ${store.listMessagesColdMs}, ${store.folderStateMs}, ${store.getByUidsAllMs} ms | measured |`,
    );
  const takeover = at(report, 'cluster', 'largeTakeover') as Json;
  if (takeover)
    rows.push(
      `| several nodes: owner killed, ${takeover.inboxMessages}-message INBOX: to the new lease; to a full SELECT | ${takeover.secondsFromKillToNewLease} s; ${takeover.secondsFromNewLeaseToFullSelect} s | within one lease (${takeover.leaseSeconds} s) |`,
    );
  const faults = at(report, 'cluster', 'outageAndPartition') as Json;
  if (faults)
    rows.push(
      `| several nodes: every mailbox served again after a PostgreSQL outage; after a partition | ${at(faults, 'outage', 'secondsUntilAllServed')} s; ${at(faults, 'partition', 'secondsUntilAllServedElsewhere')} s | ${at(faults, 'outage', 'bound')}; ${at(faults, 'partition', 'bound')} |`,
    );
  return rows;
}
