/**
 * The headline figures of a bench report as one Markdown table, with the date and commit they
 * were measured at (issue 27): CPU per synced message, time and requests against the vendor's
 * floors, peak and resting RSS, and the ratios against Dovecot. Parts that did not run are
 * left out.
 */

type Json = Record<string, unknown> | undefined;

const at = (value: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), value);

function coldRow(label: string, cold: Json): string[] {
  if (!cold) return [];
  return [
    `| ${label}: bridge CPU per synced message | ${cold.bridgeCpuMsPerMessage} ms (${at(cold, 'selectCpuSeconds', 'bridge')} s) | < 0.3 ms |`,
    `| ${label}: time against the sliding-window floor | ${cold.seconds} s / ${cold.minSeconds} s = ${cold.timeRatio}x | <= 1.1x |`,
    `| ${label}: vendor requests against the floor | ${cold.vendorRequests} / ${cold.minRequests} = ${cold.requestRatio}x, ${cold.rateLimited} rate-limited | <= 1.2x, 0 |`,
  ];
}

export function summaryTable(report: Record<string, unknown>): string {
  const rows: string[] = [];
  const fetch = at(report, 'imap', 'fetch') as Json;
  rows.push(...coldRow('cold sync', fetch?.cold as Json));
  rows.push(...coldRow('cold sync, MAILBRIDGE_DESCRIBE_WORKERS=0', at(report, 'imap', 'coldInlineDescribe') as Json));
  const dovecot = fetch?.dovecotWarm as Json;
  if (dovecot && Number.isFinite(dovecot.ms))
    rows.push(
      `| warm metadata FETCH against Dovecot | ${at(fetch, 'warm', 'ms')} ms / ${dovecot.ms} ms = ${dovecot.bridgeOverDovecot}x time | <= 1.0x |`,
    );
  const rss = at(report, 'imap', 'rssAfterSync') as Json;
  if (rss)
    rows.push(
      `| ${rss.messagesSynced}-message sync: peak / resting RSS | ${rss.peakRssMb} MB / ${rss.restingRssMb} MB (${rss.seconds} s) | < 300 MB / < 200 MB |`,
    );
  const mixes = (at(report, 'sessions', 'mix') ?? {}) as Record<string, Json>;
  for (const [key, m] of Object.entries(mixes))
    rows.push(
      `| read-mostly mix, ${key.replace('sessions', '')} sessions, against Dovecot | ${m?.bridgeOpsPerSecond} / ${m?.dovecotOpsPerSecond} ops/s = ${m?.ratio}x | >= 1.0x |`,
    );
  const stress = (at(report, 'sessions', 'imaptest') ?? {}) as Record<string, Json | string>;
  if (typeof stress.skipped === 'string')
    rows.push(`| imaptest stress mix against Dovecot | skipped: ${stress.skipped} | >= 1.0x |`);
  for (const [key, m] of Object.entries(stress))
    if (key.startsWith('clients') && typeof m === 'object')
      rows.push(
        `| imaptest stress mix (${stress.parameters}), ${key.replace('clients', '')} clients, against Dovecot | ${m?.bridgeOpsPerSecond} / ${m?.dovecotOpsPerSecond} ops/s = ${m?.ratio}x, ${m?.bridgeErrors} errors | >= 1.0x, 0 errors |`,
      );
  return [
    `Measured ${report.date} at commit ${report.commit} (node ${report.node}).`,
    '',
    '| measure | result | target |',
    '|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
