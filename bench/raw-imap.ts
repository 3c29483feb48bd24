import net from 'node:net';

/**
 * The thinnest IMAP client that can time a server: it sends a command and reads the byte
 * stream until the tagged answer, skipping literals and counting untagged FETCH responses,
 * without building any objects. A full client (imapflow) spends more CPU parsing 10,000
 * FETCH responses than the server spends writing them, so its time would measure the client.
 */
export class RawImap {
  private buffer: Buffer = Buffer.alloc(0);
  private waiter: (() => void) | null = null;
  /** When the first bytes after the last command was sent arrived. */
  private firstByteAt: number | null = null;
  private closed: Error | null = null;
  private tagCounter = 0;

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.firstByteAt ??= performance.now();
      this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
      this.waiter?.();
    });
    socket.on('close', () => {
      this.closed = new Error(`connection closed after: ${this.buffer.toString('latin1', 0, 200)}`);
      this.waiter?.();
    });
  }

  /** A session that has been greeted, not logged in (from `localAddress` if given, e.g. 127.0.0.2). */
  static async connect(port: number, localAddress?: string): Promise<RawImap> {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress });
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const client = new RawImap(socket);
    await client.untilLine((line) => line.startsWith('* OK'));
    return client;
  }

  static async login(port: number, user: string, password: string): Promise<RawImap> {
    const client = await RawImap.connect(port);
    const login = await client.tryLogin(user, password);
    if (login.status !== 'OK') throw new Error(`LOGIN failed: ${login.text}`);
    return client;
  }

  tryLogin(user: string, password: string): ReturnType<RawImap['command']> {
    return this.command(`LOGIN ${quote(user)} ${quote(password)}`);
  }

  /**
   * Runs one command; resolves when its tagged answer has arrived. `firstByteMs`: until the
   * first bytes of its answer arrived (commands must not overlap on one connection). `kept`:
   * the untagged lines (first physical lines) that `keep` matches.
   */
  async command(
    text: string,
    keep?: RegExp,
  ): Promise<{
    ms: number;
    firstByteMs: number;
    status: string;
    text: string;
    fetches: number;
    bytes: number;
    kept: string[];
  }> {
    const tag = `r${++this.tagCounter}`;
    this.firstByteAt = null;
    const start = performance.now();
    this.socket.write(`${tag} ${text}\r\n`);
    let fetches = 0;
    let bytes = 0;
    const kept: string[] = [];
    const done = await this.untilLine((line, size) => {
      bytes += size;
      if (/^\* \d+ FETCH /.test(line)) fetches++;
      else if (keep?.test(line)) kept.push(line);
      return line.startsWith(`${tag} `);
    });
    const [, status] = done.split(' ');
    const end = performance.now();
    return {
      ms: end - start,
      firstByteMs: (this.firstByteAt ?? end) - start,
      status,
      text: done,
      fetches,
      bytes,
      kept,
    };
  }

  close(): void {
    this.socket.destroy();
  }

  async logout(): Promise<void> {
    await this.command('LOGOUT').catch(() => undefined);
    this.socket.destroy();
  }

  /**
   * Reads logical response lines (a line plus the literals it announces) until `stop` accepts
   * one; `stop` sees the line's first physical line and the logical line's byte length.
   */
  private async untilLine(stop: (firstLine: string, size: number) => boolean): Promise<string> {
    let start = 0;
    let pos = 0;
    for (;;) {
      const eol = this.buffer.indexOf('\r\n', pos);
      if (eol < 0) {
        await this.more();
        continue;
      }
      const literal = /\{(\d+)\}$/.exec(this.buffer.toString('latin1', Math.max(pos, eol - 12), eol));
      if (literal) {
        const end = eol + 2 + Number(literal[1]);
        if (this.buffer.length < end) {
          await this.more();
          continue;
        }
        pos = end; // the logical line goes on after the literal
        continue;
      }
      const first = this.buffer.toString('latin1', start, Math.min(eol, this.buffer.indexOf('\r\n', start)));
      const size = eol + 2 - start;
      this.buffer = this.buffer.subarray(eol + 2);
      start = 0;
      pos = 0;
      if (stop(first, size)) return first;
    }
  }

  private more(): Promise<void> {
    if (this.closed) return Promise.reject(this.closed);
    return new Promise((resolve) => {
      this.waiter = () => {
        this.waiter = null;
        resolve();
      };
    });
  }
}

function quote(s: string): string {
  return `"${s.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}
