import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * imaptest's stress mix (https://imapwiki.org/ImapTest), when an imaptest binary is on the
 * machine: BENCH_IMAPTEST names it, else `imaptest` on the PATH. The bench runs without it and
 * says the phase was skipped.
 *
 * The mix is imaptest's default (LOGIN, LIST, STATUS, SELECT, FETCH, FETCH2, STORE, LOGOUT with
 * imaptest's own probabilities) without the states that add or remove messages: APPEND, COPY,
 * STORE \Deleted and EXPUNGE would reach the vendor through the bridge as new and deleted
 * messages, so the comparison is of reads and flag changes, as in the sessions mix.
 */
export const imaptestMix = ['append=0,0', 'copy=0,0', 'delete=0', 'expunge=0'];

export function imaptestBinary(): string | null {
  const named = process.env.BENCH_IMAPTEST;
  if (named) return fs.existsSync(named) ? named : null;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, 'imaptest');
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  return null;
}

export interface ImaptestResult {
  opsPerSecond: number;
  /** Commands of each state over the run (imaptest's "Totals"). */
  totals: Record<string, number>;
  /** Mean ms per command of each state over the last interval imaptest printed before its totals. */
  lastIntervalMs: Record<string, number>;
  /** Lines imaptest reports as errors (a failed command, an answer its tracking finds wrong). */
  errors: number;
  firstErrors: string[];
}

/** The numbers under imaptest's "Totals:" header line, by the header's state names. */
export function parseImaptestTotals(output: string): Record<string, number> {
  const lines = output.split('\n');
  const at = lines.lastIndexOf('Totals:');
  if (at < 0) throw new Error(`imaptest printed no totals: ${output.slice(-500)}`);
  const names = lines[at + 1].trim().split(/\s+/);
  const counts = lines
    .slice(at + 2)
    .find((l) => /^\s*\d+(\s+\d+)*\s*$/.test(l))
    ?.trim()
    .split(/\s+/)
    .map(Number);
  if (!counts || counts.length !== names.length) throw new Error(`imaptest totals unreadable: ${lines.slice(at)}`);
  return Object.fromEntries(names.map((n, i) => [n, counts[i]]));
}

/** The "ms/cmd avg" line printed just before the totals, by the totals' state names. */
function lastIntervalMs(output: string, names: string[]): Record<string, number> {
  const lines = output.split('\n');
  const line = lines
    .slice(0, lines.lastIndexOf('Totals:'))
    .reverse()
    .find((l) => l.includes('ms/cmd avg'));
  const values = line?.trim().split(/\s+/).slice(0, names.length).map(Number) ?? [];
  return Object.fromEntries(values.map((v, i) => [names[i], v]));
}

/** One imaptest run of `seconds` against a server; ops/s counts every command of the totals. */
export async function runImaptest(
  binary: string,
  target: { port: number; user: string; password: string },
  clients: number,
  seconds: number,
): Promise<ImaptestResult> {
  const args = [
    'host=127.0.0.1',
    `port=${target.port}`,
    `user=${target.user}`,
    `pass=${target.password}`,
    `clients=${clients}`,
    `secs=${seconds}`,
    'seed=1',
    ...imaptestMix,
  ];
  // a build against Dovecot's libraries finds libdovecot.so there
  const libraryPath = ['/usr/lib/dovecot', process.env.LD_LIBRARY_PATH].filter(Boolean).join(':');
  const child = spawn(binary, args, { env: { ...process.env, LD_LIBRARY_PATH: libraryPath } });
  let output = '';
  child.stdout.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0 && !output.includes('Totals:')) throw new Error(`imaptest exited with ${code}: ${output.slice(-500)}`);
  const totals = parseImaptestTotals(output);
  const errors = output.split('\n').filter((l) => /^Error:|\bError\b.*:/.test(l));
  return {
    opsPerSecond: +(Object.values(totals).reduce((a, b) => a + b, 0) / seconds).toFixed(1),
    totals,
    lastIntervalMs: lastIntervalMs(output, Object.keys(totals)),
    errors: errors.length,
    firstErrors: errors.slice(0, 5),
  };
}
