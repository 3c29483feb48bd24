import fs from 'node:fs';
import net from 'node:net';

/**
 * Ports for child processes that must be told theirs before they start. Taking one from
 * `listen(0)` and closing it races every other test file: the kernel hands the same ephemeral
 * range to their `listen(0)` and outgoing connections. These come from below that range, a block
 * per vitest worker, so only this worker's own earlier ports can collide, and those are probed.
 */
const blockSize = 500;
const firstPort = 20_000;
let next = 0;

function ephemeralStart(): number {
  try {
    return Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return 32_768;
  }
}

const pool = Number(process.env.VITEST_POOL_ID ?? 0);
const blockStart = firstPort + pool * blockSize;
const usable = Number.isInteger(pool) && pool >= 0 && blockStart + blockSize <= ephemeralStart();

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A loopback port nothing listens on right now, that no other process is handed meanwhile. */
export async function freePort(): Promise<number> {
  if (usable) {
    for (let tries = 0; tries < blockSize; tries++) {
      const port = blockStart + (next++ % blockSize);
      if (await bindable(port)) return port;
    }
  }
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
