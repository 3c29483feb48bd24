import net from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { control, mailbox, startHarness, type Harness } from '../support/bridge-harness';
import { rawSession } from '../support/raw-session';

/**
 * COMPRESS=DEFLATE (RFC 4978): after `COMPRESS DEFLATE` both directions are raw deflate
 * streams, each answer flushed whole (IDLE's updates too); a second COMPRESS is refused; the
 * line length limit counts inflated bytes, so a few compressed bytes cannot make a huge line.
 * Offered to loopback clients only with `imapCompression: "always"` (these tests' setting):
 * by default only to clients on another machine.
 */

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ sandbox: { messages: 4 }, config: { imapCompression: 'always' } });
});

afterAll(async () => {
  await h?.close();
});

/** A session read as text, which can switch both directions to raw deflate. */
class Session {
  private text = '';
  private waiters: Array<() => void> = [];
  private deflate: zlib.DeflateRaw | null = null;
  private inflate: zlib.InflateRaw | null = null;
  private n = 0;
  private ended = false;
  /** Settles when the server closed the connection and everything it sent was read. */
  readonly closed: Promise<void>;

  constructor(readonly socket: net.Socket) {
    socket.on('data', (b: Buffer) => (this.inflate ? this.inflate.write(b) : this.add(b)));
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        if (!this.inflate) return resolve();
        // the last compressed bytes are still being inflated; a stream cut without its final
        // block (the client closed) is an error of the inflater, not of the test
        this.inflate.once('close', () => resolve());
        this.inflate.on('error', () => undefined);
        this.inflate.end();
      }),
    );
    void this.closed.then(() => {
      this.ended = true;
      this.wake();
    });
  }

  private add(b: Buffer): void {
    this.text += b.toString('latin1');
    this.wake();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Everything received up to the end of the first match of `pattern`, consumed. */
  async until(pattern: RegExp): Promise<string> {
    for (;;) {
      const m = pattern.exec(this.text);
      if (m) {
        const upTo = this.text.slice(0, m.index + m[0].length);
        this.text = this.text.slice(upTo.length);
        return upTo;
      }
      if (this.ended) throw new Error(`closed before ${pattern}; got ${JSON.stringify(this.text)}`);
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  send(data: string | Buffer): void {
    if (!this.deflate) {
      this.socket.write(data);
      return;
    }
    this.deflate.write(data);
    this.deflate.flush();
  }

  run(command: string): Promise<string> {
    const tag = `c${++this.n}`;
    this.send(`${tag} ${command}\r\n`);
    return this.until(new RegExp(`^${tag} (OK|NO|BAD)[^\\r\\n]*\\r\\n`, 'm'));
  }

  compress(): void {
    this.inflate = zlib.createInflateRaw();
    this.inflate.on('data', (b: Buffer) => this.add(b));
    this.deflate = zlib.createDeflateRaw();
    this.deflate.pipe(this.socket);
  }
}

async function login(): Promise<Session> {
  const socket = net.connect(h.bridge.ports.imap, '127.0.0.1');
  const s = new Session(socket);
  await s.until(/^\* OK[^\r\n]*\r\n/m);
  expect(await s.run(`LOGIN "${mailbox}" "${h.password}"`)).toMatch(/ OK /);
  return s;
}

async function compressed(): Promise<Session> {
  const s = await login();
  expect(await s.run('COMPRESS DEFLATE')).toMatch(/^c\d+ OK/m);
  s.compress();
  return s;
}

test('COMPRESS=DEFLATE is offered once logged in; a compressed session reads what a plain one does', async () => {
  const plain = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  expect(await plain.run('CAPABILITY')).toMatch(/^\* CAPABILITY .*\bCOMPRESS=DEFLATE\b/m);
  await plain.run('EXAMINE INBOX');
  const expected = await plain.run('FETCH 1:* (UID FLAGS BODY.PEEK[])');
  plain.close();

  const s = await compressed();
  await s.run('EXAMINE INBOX');
  const answer = await s.run('FETCH 1:* (UID FLAGS BODY.PEEK[])');
  expect(answer.replace(/^c\d+ /m, '')).toBe(expected.replace(/^t\d+ /m, ''));
  expect(answer).toMatch(/BODY\[\] \{\d{3,}\}/);
  s.socket.destroy();
});

test("IDLE in a compressed session gets a new message's EXISTS as it arrives", async () => {
  const s = await compressed();
  const selected = await s.run('SELECT INBOX');
  const exists = Number(/^\* (\d+) EXISTS/m.exec(selected)?.[1]);
  s.send('c99 IDLE\r\n');
  await s.until(/^\+ [^\r\n]*\r\n/m);
  await control(h.sandbox, 'POST', '/inject', {
    mailbox,
    message: { from: 'news@example.org', to: mailbox, subject: 'Compressed news', text: 'hello' },
  });
  await h.bridge.pollers[0].tick();
  await s.until(new RegExp(`^\\* ${exists + 1} EXISTS\\r\\n`, 'm'));
  s.send('DONE\r\n');
  expect(await s.until(/^c99 (OK|NO|BAD)[^\r\n]*\r\n/m)).toMatch(/^c99 OK/m);
  s.socket.destroy();
});

test('a second COMPRESS is NO [COMPRESSIONACTIVE]; LOGOUT gets its BYE and OK before the close', async () => {
  const s = await compressed();
  expect(await s.run('COMPRESS DEFLATE')).toMatch(/^c\d+ NO \[COMPRESSIONACTIVE\]/m);
  expect(await s.run('NOOP')).toMatch(/^c\d+ OK/m);
  expect(await s.run('LOGOUT')).toMatch(/^\* BYE[^\r\n]*\r\nc\d+ OK/m);
  await s.closed;
});

test('the line length limit counts inflated bytes: 2 MB of one line in a few kilobytes ends the session', async () => {
  const s = await compressed();
  const line = Buffer.alloc(2 * 1024 * 1024, 'a');
  expect(zlib.deflateRawSync(line).length).toBeLessThan(h.config.limits.maxLineBytes);
  s.send(line);
  expect(await s.until(/^\* BYE[^\r\n]*\r\n/m)).toMatch(/^\* BAD \[TOOBIG\]/m);
  await s.closed;
});

test('by default a loopback client is not offered COMPRESS, and its COMPRESS is an unknown command', async () => {
  const local = await startHarness({ sandbox: { messages: 1 } });
  try {
    const plain = await rawSession(local.bridge.ports.imap, mailbox, local.password);
    expect(await plain.run('CAPABILITY')).not.toMatch(/COMPRESS/);
    expect(await plain.run('COMPRESS DEFLATE')).toMatch(/^t\d+ BAD Unknown command: COMPRESS\r\n/m);
    // still plain text
    expect(await plain.run('NOOP')).toMatch(/^t\d+ OK/m);
    plain.close();
  } finally {
    await local.close();
  }
});
