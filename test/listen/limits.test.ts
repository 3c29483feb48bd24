import { afterAll, beforeAll, expect, test } from 'vitest';
import { type Harness, mailbox, startHarness } from '../support/bridge-harness';
import { type Wire, wire } from '../support/wire';

/**
 * What a client that has not logged in can make the listeners do: short lines only, no
 * literal it could not use, a bounded number of connections, a bounded time.
 */

let h: Harness;
const limits = {
  maxLineBytesBeforeLogin: 8192,
  maxLineBytes: 65_536,
  maxConnectionsPerPeer: 4,
  loginTimeoutSeconds: 2,
};
const open: Wire[] = [];

beforeAll(async () => {
  h = await startHarness({ config: { limits } });
});

afterAll(async () => {
  for (const w of open) w.close();
  await h?.close();
});

async function imap(): Promise<Wire> {
  const w = await wire(h.bridge.ports.imap);
  open.push(w);
  await w.until(/^\* OK .*\r\n/m);
  return w;
}

async function smtp(): Promise<Wire> {
  const w = await wire(h.bridge.ports.smtp);
  open.push(w);
  return w;
}

test('a line without CRLF past the limit before login: BAD, then the connection is closed', async () => {
  const w = await imap();
  const chunk = 'x'.repeat(1024);
  // 64 KB in 1 KB writes: without the limit the server would wait for the end of the line forever
  for (let i = 0; i < 64; i++) await w.write(chunk);
  expect(await w.until(/\* BYE .*\r\n/)).toMatch(/^\* BAD \[TOOBIG\] Command line too long \(limit 8192 bytes\)\r\n/m);
  await w.closed;
});

test('a whole line past the limit before login is refused the same way', async () => {
  const w = await imap();
  await w.write(`a LOGIN ${'u'.repeat(9000)} secret\r\n`);
  expect(await w.until(/\* BYE .*\r\n/)).toMatch(/^\* BAD \[TOOBIG\]/m);
  await w.closed;
});

/**
 * RFC 2971's largest ID: 30 fields of 30 octets, each value 1024 octets, here backslashes,
 * each escaped in its quoted string: a 62 KB line.
 */
const field = (i: number) => `field-${String(i).padStart(24, '0')}`;
const largestIdPairs = Array.from({ length: 30 }, (_, i) => `"${field(i)}" "${'\\\\'.repeat(1024)}"`);

test('the largest ID RFC 2971 allows is answered before login, in one line or around a literal', async () => {
  const w = await imap();
  const line = `a ID (${largestIdPairs.join(' ')})\r\n`;
  expect(line.length).toBeGreaterThan(60_000);
  await w.write(line);
  expect(await w.until(/^a (OK|NO|BAD).*\r\n/m)).toMatch(/^\* ID \(.*\r\na OK/m);

  // a value as a literal: the rest of the command after it is a line of its own
  await w.write(`b ID ("name" {4}\r\n`);
  await w.until(/^\+ .*\r\n/m);
  await w.write(`mutt ${largestIdPairs.slice(1).join(' ')})\r\n`);
  expect(await w.until(/^b (OK|NO|BAD).*\r\n/m)).toMatch(/^b OK/m);
  await w.write('c NOOP\r\n');
  expect(await w.until(/^c (OK|NO|BAD).*\r\n/m)).toMatch(/^c OK/m);
  w.close();
});

test('an ID line past 64 KiB before login: BAD [TOOBIG] with that limit, then the connection is closed', async () => {
  const w = await imap();
  await w.write(`a ID ("name" "${'x'.repeat(70_000)}")\r\n`);
  expect(await w.until(/\* BYE .*\r\n/)).toMatch(/^\* BAD \[TOOBIG\] Command line too long \(limit 65536 bytes\)\r\n/m);
  await w.closed;
});

test('before login a command past 64 KiB in all, literals included, is refused: BAD [TOOBIG], then the connection is closed', async () => {
  const w = await imap();
  // LITERAL+ literals of 1 KB each, in lines that are short: 100 KB in one command
  await w.write(`a ID ("name" {1024+}\r\n${'x'.repeat(1024)}`);
  const more = ` "name" {1024+}\r\n${'x'.repeat(1024)}`;
  for (let i = 0; i < 100; i++) await w.write(more);
  expect(await w.until(/\* BYE .*\r\n/)).toMatch(/^\* BAD \[TOOBIG\] Command too long \(limit 65536 bytes\)\r\n/m);
  await w.closed;
});

test('SMTP answers a line past the limit with 421 and closes', async () => {
  const s = await smtp();
  await s.until(/^220 .*\r\n/m);
  await s.write(`EHLO ${'h'.repeat(limits.maxLineBytesBeforeLogin + 100)}`);
  expect(await s.until(/^421 .*\r\n/m)).toMatch(/^421 .*Command line too long\r\n/m);
  await s.closed;
});

test('after login the longer limit applies: a 20 KB UID set is fine', async () => {
  const w = await imap();
  await w.write(`a LOGIN "${mailbox}" "${h.password}"\r\na SELECT INBOX\r\n`);
  await w.until(/^a OK .*\r\n[\s\S]*^a OK .*\r\n/m);
  const set = Array.from({ length: 4000 }, (_, i) => 2 * i + 1).join(',');
  expect(set.length).toBeGreaterThan(limits.maxLineBytesBeforeLogin);
  await w.write(`b UID FETCH ${set} (FLAGS)\r\n`);
  expect(await w.until(/^b (OK|NO|BAD).*\r\n/m)).toMatch(/^b OK/m);
  w.close();
});

test('APPEND before login gets no continuation: its literal is never read', async () => {
  const w = await imap();
  await w.write('a APPEND INBOX {26214400}\r\n');
  const answer = await w.until(/^a (OK|NO|BAD).*\r\n/m);
  expect(answer).not.toMatch(/^\+/m);
  expect(answer).toMatch(/^a BAD APPEND not allowed now\r\n/m);
  // what the client sends anyway is read as command lines, and the first long one ends the session
  await w.write('y'.repeat(20_000));
  expect(await w.until(/\* BYE .*\r\n/)).toMatch(/^\* BAD \[TOOBIG\]/m);
  await w.closed;
});

test('before login no literal over 1 KB is taken', async () => {
  const w = await imap();
  await w.write('a LOGIN {2000}\r\n');
  const answer = await w.until(/^a (OK|NO|BAD).*\r\n/m);
  expect(answer).not.toMatch(/^\+/m);
  expect(answer).toMatch(/^a NO Literal too large\r\n/m);
  w.close();
});

test('after login an APPEND over APPENDLIMIT is refused before its literal', async () => {
  const w = await imap();
  await w.write(`a LOGIN "${mailbox}" "${h.password}"\r\n`);
  expect(await w.until(/^a (OK|NO|BAD).*\r\n/m)).toMatch(/APPENDLIMIT=26214400/);
  await w.write('b APPEND INBOX {26214401}\r\n');
  const answer = await w.until(/^b (OK|NO|BAD).*\r\n/m);
  expect(answer).not.toMatch(/^\+/m);
  expect(answer).toMatch(/^b NO \[TOOBIG\]/m);
  w.close();
});

test('a client that does not log in in time is disconnected (IMAP BYE, SMTP 421)', async () => {
  const i = await imap();
  const s = await smtp();
  expect(await s.until(/^220 .*\r\n/m)).toBeTruthy();
  expect(await i.until(/^\* BYE .*\r\n/m, 20_000)).toMatch(/Login timeout/);
  expect(await s.until(/^421 .*\r\n/m, 20_000)).toMatch(/Login timeout/);
  await Promise.all([i.closed, s.closed]);
});

test('past the per-peer cap a connection is refused (IMAP BYE, SMTP 421) until one closes', async () => {
  for (const w of open.splice(0)) w.close();
  const held = await Promise.all(Array.from({ length: limits.maxConnectionsPerPeer }, () => imap()));
  const refused = await wire(h.bridge.ports.imap);
  expect(await refused.until(/\r\n/)).toBe('* BYE Too many connections\r\n');
  await refused.closed;

  const smtpHeld = await Promise.all(Array.from({ length: limits.maxConnectionsPerPeer }, () => smtp()));
  for (const w of smtpHeld) await w.until(/^220 .*\r\n/m);
  const smtpRefused = await smtp();
  expect(await smtpRefused.until(/\r\n/)).toMatch(/^421 .*Too many connections\r\n/);
  await smtpRefused.closed;

  held[0].close();
  await held[0].closed;
  // the server sees the close a moment later; a new connection is admitted once it has
  let admitted = '';
  for (let i = 0; i < 50 && !admitted.startsWith('* OK'); i++) {
    const next = await wire(h.bridge.ports.imap);
    open.push(next);
    admitted = await next.until(/\r\n/);
  }
  expect(admitted).toMatch(/^\* OK /);
});
