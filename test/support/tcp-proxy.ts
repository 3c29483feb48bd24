import net from 'node:net';

/**
 * A TCP proxy on loopback in front of a server (a TCP port or a Unix socket), for partitions:
 * `cut()` makes every connection hang, as a network that drops packets does. Bytes in either
 * direction are dropped from then on and new connections are accepted but never reach the
 * server: nothing is refused or closed, so a client learns of the cut only from its own
 * timeouts. `cutAfter` cuts at a moment named by the traffic (the answer to some query), so a
 * test can put the cut where it hurts most without racing it.
 */
export type Direction = 'up' | 'down';

export interface TcpProxy {
  port: number;
  /** Cuts now. */
  cut(): void;
  /** Cuts right after the first chunk `matches` is passed on (`down`: server to client). */
  cutAfter(matches: (chunk: Buffer, direction: Direction) => boolean): Promise<void>;
  /** Whether a cut is in force. */
  isCut(): boolean;
  /** Called for each chunk passed on, when it is passed on. */
  onChunk(fn: (chunk: Buffer, direction: Direction) => void): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { port: number; host?: string } | { path: string }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const watchers: Array<(chunk: Buffer, direction: Direction) => void> = [];
  let cut = false;
  let trigger: { matches: (chunk: Buffer, direction: Direction) => boolean; done(): void } | null = null;

  const pass = (chunk: Buffer, direction: Direction, to: net.Socket) => {
    if (cut) return;
    to.write(chunk);
    for (const w of watchers) w(chunk, direction);
    if (trigger?.matches(chunk, direction)) {
      cut = true;
      trigger.done();
      trigger = null;
    }
  };

  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    // a connection opened during a cut hangs: accepted, never passed on
    if (cut) return;
    const upstream = net.connect(target as net.NetConnectOpts);
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      if (!cut) client.destroy();
    });
    upstream.on('error', () => undefined);
    client.on('close', () => {
      if (!cut) upstream.destroy();
    });
    client.on('data', (chunk) => pass(chunk, 'up', upstream));
    upstream.on('data', (chunk) => pass(chunk, 'down', client));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut: () => {
      cut = true;
    },
    cutAfter: (matches) => new Promise<void>((done) => (trigger = { matches, done })),
    isCut: () => cut,
    onChunk: (fn) => watchers.push(fn),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
