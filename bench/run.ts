import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runClickBench } from './click';
import { runClusterBench } from './cluster';
import { runImapBench } from './imap';
import { runScaleBench } from './scale';
import { runSessionsBench } from './sessions';
import { runSmtpBench } from './smtp';
import { summaryTable } from './summary';

/**
 * `npm run bench`: every benchmark, one JSON report on stdout and in bench/results/.
 * BENCH_ONLY=imap|sessions|smtp|click|scale|cluster runs one of them. The headline figures also
 * go to stderr and bench/results/latest.md as one table (summary.ts).
 */

/** The commit measured, marked when the work tree has changes on top of it. */
function commit(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: __dirname }).toString().trim();
  try {
    return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') ? '+changes' : ''}`;
  } catch {
    return 'unknown';
  }
}
async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY;
  const report: Record<string, unknown> = { date: new Date().toISOString(), commit: commit(), node: process.version };
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
  const table = summaryTable(report);
  process.stderr.write(`\n${table}`);
  fs.writeFileSync(path.join(dir, 'latest.md'), table);
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : err}\n`);
    process.exit(1);
  },
);
