import net from 'node:net';
import tls from 'node:tls';

/** A plain or TLS client socket read as text, for byte-exact protocol assertions. */
export interface Wire {
  socket: net.Socket;
  /** Waits (at most `waitMs`) until the unread text matches, then returns and consumes it. */
  until(done: RegExp, waitMs?: number): Promise<string>;
  write(data: string | Buffer): Promise<void>;
  /** Settles when the server has closed the connection. */
  closed: Promise<void>;
  /** Text received and not consumed yet. */
  unread(): string;
  close(): void;
}

export async function wire(port: number, secure?: tls.ConnectionOptions): Promise<Wire> {
  const socket = secure ? tls.connect({ port, host: '127.0.0.1', ...secure }) : net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once(secure ? 'secureConnect' : 'connect', resolve);
    socket.once('error', reject);
  });
  return wrap(socket);
}

export function wrap(socket: net.Socket): Wire {
  let buffer = '';
  let wake: (() => void) | null = null;
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    wake?.();
  });
  // a write into a socket the server already closed is part of what tests provoke
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  void closed.then(() => wake?.());
  let isClosed = false;
  void closed.then(() => {
    isClosed = true;
  });
  return {
    socket,
    closed,
    unread: () => buffer,
    async until(done, waitMs = 15_000) {
      const deadline = setTimeout(() => wake?.(), waitMs);
      const started = Date.now();
      try {
        while (!done.test(buffer)) {
          if (isClosed || Date.now() - started >= waitMs)
            throw new Error(
              `no ${done} ${isClosed ? 'before the server closed' : `within ${waitMs} ms`}; got: ${JSON.stringify(buffer.slice(-300))}`,
            );
          await new Promise<void>((r) => {
            wake = r;
          });
        }
      } finally {
        clearTimeout(deadline);
      }
      const out = buffer;
      buffer = '';
      return out;
    },
    write: (data) => new Promise<void>((resolve) => socket.write(data, () => resolve())),
    close: () => socket.destroy(),
  };
}
