import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { processCpuSeconds } from './daemon-process';

/** A sandbox vendor in its own process, so its memory and CPU do not blur the bridge's numbers. */
export interface SandboxProcess {
  urls: { read: string; mail: string; graph: string; control: string };
  apiKey: string;
  control<T>(method: 'GET' | 'POST', route: string, body?: unknown): Promise<T>;
  /** CPU time the sandbox process has used so far. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

export async function spawnSandbox(args: {
  messages: number;
  latencyMs: number;
  seed?: number;
}): Promise<SandboxProcess> {
  const cli = path.join(__dirname, '..', 'src', 'cli.ts');
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--max-old-space-size=4096',
      '-r',
      'tsx/cjs',
      cli,
      'sandbox',
      '--messages',
      String(args.messages),
      '--latency',
      String(args.latencyMs),
      '--seed',
      String(args.seed ?? 1),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const info = await new Promise<{ urls: SandboxProcess['urls']; apiKey: string }>((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      try {
        resolve(JSON.parse(out));
      } catch {
        // wait for the rest of the JSON
      }
    });
  });
  const control = async <T>(method: 'GET' | 'POST', route: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${info.urls.control}${route}`, {
      method,
      headers: body ? { 'content-type': 'application/json' } : undefined,
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!res.ok) throw new Error(`control ${route}: ${res.status}`);
    return (await res.json()) as T;
  };
  return {
    ...info,
    control,
    cpuSeconds: () => processCpuSeconds(child.pid),
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
