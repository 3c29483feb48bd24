import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createLogger } from '../../src/log';
import { Rng } from '../../src/sandbox/rng';
import { mailbox, startHarness, type Harness } from '../support/bridge-harness';
import { commandNames, randomCommand, type Segment } from '../support/imap-fuzz';
import { rawSession } from '../support/raw-session';

/**
 * Nothing a client sends can end the process: thousands of seeded random commands, covering
 * every command imap-core knows, before login, after login and with a folder selected. Every
 * command must get its tagged answer (or the server closes the connection on purpose), no
 * exception may escape, and the daemon must still answer NOOP afterwards.
 */

const seed = 20_261_123;
const rounds = 240;
const commandsPerRound = 25;
const answerTimeoutMs = 10_000;

type Outcome = 'answered' | 'closed' | 'hung';

/** A fuzzing connection: sends segments, honours continuations, waits for the tagged answer. */
class FuzzConnection {
  private buffer = '';
  private closed = false;
  private wake: (() => void) | null = null;

  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      this.wake?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake?.();
    });
    socket.on('error', () => undefined);
  }

  static async open(port: number): Promise<FuzzConnection> {
    const c = new FuzzConnection(net.connect(port, '127.0.0.1'));
    await c.waitFor(/^\* OK.*\r\n/m);
    return c;
  }

  /** Waits until `pattern` shows up in what the server sent, consuming up to the match. */
  async waitFor(pattern: RegExp): Promise<RegExpExecArray | Outcome> {
    const deadline = setTimeout(() => this.wake?.(), answerTimeoutMs);
    const started = process.hrtime.bigint();
    try {
      for (;;) {
        const m = pattern.exec(this.buffer);
        if (m) {
          this.buffer = this.buffer.slice(m.index + m[0].length);
          return m;
        }
        if (this.closed) return 'closed';
        if (process.hrtime.bigint() - started >= BigInt(answerTimeoutMs) * 1_000_000n) return 'hung';
        await new Promise<void>((r) => (this.wake = r));
      }
    } finally {
      clearTimeout(deadline);
    }
  }

  async run(tag: string, segments: Segment[]): Promise<Outcome> {
    if (this.closed) return 'closed';
    const answer = new RegExp(`^${tag} (OK|NO|BAD)[^\\r\\n]*\\r\\n|^\\+[^\\r\\n]*\\r\\n`, 'm');
    let line = `${tag} `;
    for (const segment of segments) {
      if ('text' in segment) {
        line += segment.text;
        continue;
      }
      if (segment.nonSync) {
        this.socket.write(
          Buffer.concat([Buffer.from(`${line}{${segment.literal.length}+}\r\n`, 'latin1'), segment.literal]),
        );
      } else {
        this.socket.write(`${line}{${segment.literal.length}}\r\n`, 'latin1');
        const go = await this.waitFor(answer);
        if (typeof go === 'string') return go;
        if (go[0].startsWith(tag)) return 'answered'; // the literal was refused
        this.socket.write(segment.literal);
      }
      line = '';
    }
    this.socket.write(`${line}\r\n`, 'latin1');
    // continuations after the command line: IDLE ends with DONE, an AUTHENTICATE exchange gets "*"
    for (let i = 0; i < 3; i++) {
      const m = await this.waitFor(answer);
      if (typeof m === 'string') return m;
      if (m[0].startsWith(tag)) return 'answered';
      this.socket.write(
        segments[0] && 'text' in segments[0] && segments[0].text.startsWith('IDLE') ? 'DONE\r\n' : '*\r\n',
      );
    }
    return 'hung';
  }

  close(): void {
    this.socket.destroy();
  }
}

let h: Harness;
const escaped: unknown[] = [];
const record = (err: unknown) => escaped.push(err);
const errorLines: string[] = [];

beforeAll(async () => {
  process.on('uncaughtException', record);
  process.on('unhandledRejection', record);
  const sink = new Writable({
    write(chunk, _encoding, done) {
      errorLines.push(String(chunk));
      done();
    },
  });
  h = await startHarness({
    sandbox: { messages: 30 },
    // COMPRESS taken up, as from a client on another machine, so the fuzz reaches it too
    config: { imapCompression: 'always' },
    logger: createLogger('error', sink),
  });
});

afterAll(async () => {
  process.off('uncaughtException', record);
  process.off('unhandledRejection', record);
  await h?.close();
});

test('the fuzzer knows every command module of imap-core', () => {
  const dir = path.join(path.dirname(require.resolve('@mailbridge/imap-core')), 'lib', 'commands');
  const known = new Set(commandNames.map((n) => n.toLowerCase().replace(/^uid /, 'uid-').replace(/ /g, '-')));
  const modules = fs.readdirSync(dir).map((f) => f.replace(/\.js$/, ''));
  expect(modules.filter((m) => !known.has(m))).toEqual([]);
});

test('thousands of random commands end no session badly and leave the daemon answering', async () => {
  const rng = new Rng(seed);
  const hung: string[] = [];
  let answered = 0;
  let tagCounter = 0;
  for (let round = 0; round < rounds; round++) {
    const c = await FuzzConnection.open(h.bridge.ports.imap);
    const state = rng.pick(['not authenticated', 'authenticated', 'selected'] as const);
    if (state !== 'not authenticated')
      expect(await c.run('L', [{ text: `LOGIN ${mailbox} "${h.password}"` }])).toBe('answered');
    if (state === 'selected')
      expect(await c.run('S', [{ text: `SELECT ${rng.pick(['INBOX', 'Archive', 'Drafts'])}` }])).toBe('answered');
    for (let i = 0; i < commandsPerRound; i++) {
      const name = rng.pick(commandNames);
      const command = randomCommand(rng, name);
      const outcome = await c.run(`f${++tagCounter}`, command);
      if (outcome === 'hung') hung.push(command.map((s) => ('text' in s ? s.text : `{literal}`)).join(''));
      if (outcome === 'answered') answered++;
      // these end or change the plain-text conversation: start a new one
      if (outcome !== 'answered' || /^(LOGOUT|STARTTLS|COMPRESS)/.test(name)) break;
    }
    c.close();
  }

  expect(hung).toEqual([]);
  expect(escaped).toEqual([]);
  expect(answered).toBeGreaterThan(2500);
  const after = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  expect(await after.run('SELECT INBOX')).toMatch(/^t2 OK/m);
  expect(await after.run('NOOP')).toMatch(/^t3 OK/m);
  after.close();
  // whatever failed inside a command was logged, and no log line carries the password
  expect(errorLines.join('')).not.toContain(h.password);
}, 300_000);
