import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const cliPath = path.join(__dirname, '..', '..', 'src', 'cli.ts');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI in its own process; resolves with exit code and output, never throws. */
export async function mailbridge(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['-r', 'tsx/cjs', cliPath, ...args], {
      env: { ...process.env, ...env },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

export interface DaemonProcess {
  child: ChildProcess;
  /** What it printed up to and including the line matching `ready`. */
  banner: string;
  /** SIGTERM; resolves with the exit code once the process has exited. */
  stop(): Promise<number | null>;
}

/** Spawns `mailbridge ARGS` and waits (at most 60 s) until its stdout matches `ready`. */
export function spawnDaemon(args: string[], ready: RegExp, env: Record<string, string> = {}): Promise<DaemonProcess> {
  const child = spawn(process.execPath, ['-r', 'tsx/cjs', cliPath, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`mailbridge ${args.join(' ')} did not print ${ready}; stdout: ${out}; stderr: ${err}`));
    }, 60_000);
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (!ready.test(out)) return;
      clearTimeout(timer);
      resolve({ child, banner: out, stop });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mailbridge ${args.join(' ')} exited with ${code}; stdout: ${out}; stderr: ${err}`));
    });
  });
}
