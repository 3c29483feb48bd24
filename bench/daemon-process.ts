import { allocatorEnvironment } from '../src/util/memory';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const root = path.join(__dirname, '..');
const bin = path.join(root, 'bin', 'mailbridge.js');

/** The compiled bridge (`mailbridge start`) in its own process, so its RSS is the daemon's alone. */
export interface Daemon {
  password: string;
  rssMb(): number;
  /** Highest RSS so far (VmHWM). */
  peakRssMb(): number;
  /** CPU time (user + system, every thread) the daemon has used so far. */
  cpuSeconds(): number;
  /** CPU seconds of each thread alive now, by thread id (diagnostics). */
  threadCpu(): Map<string, number>;
  stop(): Promise<void>;
}

/** utime + stime of a process from /proc (clock ticks of 1/100 s on Linux). */
export function processCpuSeconds(pid: number | undefined, statFile = `/proc/${pid}/stat`): number {
  const fields = fs
    .readFileSync(statFile, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** `env`: variables for the daemon on top of the bench's own environment. */
export async function startDaemon(
  configFile: string,
  imapPort: number,
  env: Record<string, string> = {},
): Promise<Daemon> {
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  const mailbox = (JSON.parse(fs.readFileSync(configFile, 'utf8')) as { accounts: Array<{ mailbox: string }> })
    .accounts[0].mailbox;
  // seed the state (tokens from the config) and get a bridge password
  const out = execFileSync(
    process.execPath,
    [bin, 'account', 'password', '--mailbox', mailbox, '--config', configFile],
    {
      env: { ...process.env, MAILBRIDGE_ACCESS_TOKEN: '', MAILBRIDGE_REFRESH_TOKEN: '' },
    },
  ).toString();
  const password = /: (\S+)\s*$/.exec(out.trim())?.[1];
  if (!password) throw new Error(`no password in: ${out}`);
  // BENCH_DAEMON_NODE_ARGS: extra node flags for the daemon only, e.g. --cpu-prof
  const nodeArgs = (process.env.BENCH_DAEMON_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // the allocator settings the Dockerfile gives the daemon, unless the bench's environment names others
  const daemonEnv = { ...allocatorEnvironment, ...process.env, ...env };
  // started as the Dockerfile's entrypoint starts it; BENCH_DAEMON_CPUS (e.g. 0) gives the daemon
  // only those cores, as a container limited to them would (taskset execs node: the pid is node's)
  const argv = ['--expose-gc', ...nodeArgs, bin, 'start', '--config', configFile];
  const cpus = process.env.BENCH_DAEMON_CPUS;
  const child = cpus
    ? spawn('taskset', ['-c', cpus, process.execPath, ...argv], {
        stdio: ['ignore', 'ignore', 'inherit'],
        env: daemonEnv,
      })
    : spawn(process.execPath, argv, { stdio: ['ignore', 'ignore', 'inherit'], env: daemonEnv });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(imapPort, '127.0.0.1');
      s.once('data', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (up) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    password,
    cpuSeconds: () => processCpuSeconds(child.pid),
    threadCpu: () => {
      const cpu = new Map<string, number>();
      for (const tid of fs.readdirSync(`/proc/${child.pid}/task`)) {
        try {
          cpu.set(tid, processCpuSeconds(child.pid, `/proc/${child.pid}/task/${tid}/stat`));
        } catch {
          // the thread ended meanwhile
        }
      }
      return cpu;
    },
    rssMb: () => statusMb(child.pid, 'VmRSS'),
    peakRssMb: () => statusMb(child.pid, 'VmHWM'),
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** A memory figure of /proc/PID/status, in MB. */
function statusMb(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number {
  return Math.round(
    Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024,
  );
}
