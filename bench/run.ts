import fs from 'node:fs';
import path from 'node:path';
import { runClickBench } from './click';
import { runClusterBench } from './cluster';
import { runImapBench } from './imap';
import { runScaleBench } from './scale';
import { runSessionsBench } from './sessions';
import { runSmtpBench } from './smtp';

/**
 * `npm run bench`: every benchmark, one JSON report on stdout and in bench/results/.
 * BENCH_ONLY=imap|sessions|smtp|click|scale|cluster runs one of them.
 */
async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY;
  const report: Record<string, unknown> = { date: new Date().toISOString(), node: process.version };
  if (!only || only === 'imap') report.imap = await runImapBench();
  if (!only || only === 'sessions') report.sessions = await runSessionsBench();
  if (!only || only === 'smtp') report.smtp = await runSmtpBench();
  if (!only || only === 'click') report.clickDuringBulkDownload = await runClickBench();
  if (!only || only === 'scale') report.scale = await runScaleBench();
  if (!only || only === 'cluster') report.cluster = await runClusterBench();
  const text = JSON.stringify(report, null, 2);
  process.stdout.write(`${text}\n`);
  const dir = path.join(__dirname, 'results');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'latest.json'), text);
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : err}\n`);
    process.exit(1);
  },
);
