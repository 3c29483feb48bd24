import { randomBytes, scryptSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createLogger } from '../../src/log';
import { type Harness, mailbox, startHarness } from '../support/bridge-harness';
import { type Wire, wire } from '../support/wire';

/**
 * Logins on IMAP (LOGIN, AUTHENTICATE PLAIN) and SMTP (AUTH PLAIN) share one failure
 * throttle per peer, and every refusal is logged without the password tried.
 */

let h: Harness;
const lines: string[] = [];
const guess = 'Wr0ngGuess-not-the-password';

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  h = await startHarness({ config: { limits: { freeLoginFailures: 2 } }, logger: createLogger('info', sink) });
});

afterAll(async () => {
  await h?.close();
});

const refusals = () => lines.map((l) => JSON.parse(l)).filter((e) => String(e.msg).startsWith('login refused'));

async function imap(): Promise<Wire> {
  const w = await wire(h.bridge.ports.imap);
  await w.until(/^\* OK .*\r\n/m);
  return w;
}

const plain = (user: string, pass: string) => Buffer.from(`\0${user}\0${pass}`).toString('base64');

test('wrong passwords over IMAP and SMTP count together, are slowed past the free ones, and are logged without the password', async () => {
  const w = await imap();
  await w.write(`a LOGIN "${mailbox}" "${guess}"\r\n`);
  expect(await w.until(/^a (OK|NO|BAD).*\r\n/m)).toMatch(/^a NO \[AUTHENTICATIONFAILED\]/m);
  await w.write(`b AUTHENTICATE PLAIN ${plain('nobody@sandbox.test', guess)}\r\n`);
  expect(await w.until(/^b (OK|NO|BAD).*\r\n/m)).toMatch(/^b NO \[AUTHENTICATIONFAILED\]/m);

  const s = await wire(h.bridge.ports.smtp);
  await s.until(/^220 .*\r\n/m);
  await s.write('EHLO client.test\r\n');
  await s.until(/^250 .*\r\n(?!250-)/m);
  await s.write(`AUTH PLAIN ${plain(mailbox, guess)}\r\n`);
  expect(await s.until(/^\d{3} .*\r\n/m)).toMatch(/^535 /m);

  // the right password still gets in, after its wait
  await w.write(`c LOGIN "${mailbox}" "${h.password}"\r\n`);
  expect(await w.until(/^c (OK|NO|BAD).*\r\n/m)).toMatch(/^c OK/m);
  w.close();
  s.close();

  expect(refusals().map((e) => [e.protocol, e.username, e.peer, e.failures, e.delayedMs > 0])).toEqual([
    ['imap', mailbox, '127.0.0.1', 1, false],
    ['imap', 'nobody@sandbox.test', '127.0.0.1', 2, false],
    ['smtp', mailbox, '127.0.0.1', 3, true],
  ]);
  expect(lines.join('\n')).not.toContain(guess);
  expect(lines.join('\n')).not.toContain(h.password);
});

test('an unknown user gets the same answer as a wrong password', async () => {
  const answers: string[] = [];
  for (const user of [mailbox, 'nobody@sandbox.test']) {
    const w = await imap();
    await w.write(`a LOGIN "${user}" "${guess}"\r\n`);
    answers.push(await w.until(/^a (OK|NO|BAD).*\r\n/m));
    w.close();
  }
  expect(answers[0]).toMatch(/^a NO/m);
  expect(answers[1]).toBe(answers[0]);
});

test('a password hashed with scrypt by an older version still works, and is rehashed in the fast form', async () => {
  const file = path.join(h.stateDir, 'secrets.json');
  const salt = randomBytes(16);
  const legacy = `scrypt$${salt.toString('base64')}$${scryptSync(h.password, salt, 32).toString('base64')}`;
  const data = JSON.parse(fs.readFileSync(file, 'utf8'));
  data.accounts[mailbox].passwordHash = legacy;
  // a rename, as every writer of the file does, so the running store notices
  fs.writeFileSync(`${file}.new`, JSON.stringify(data), { mode: 0o600 });
  fs.renameSync(`${file}.new`, file);

  const w = await imap();
  await w.write(`a LOGIN "${mailbox}" "${h.password}"\r\n`);
  expect(await w.until(/^a (OK|NO|BAD).*\r\n/m)).toMatch(/^a OK/m);
  w.close();
  const stored = JSON.parse(fs.readFileSync(file, 'utf8')).accounts[mailbox].passwordHash as string;
  expect(stored.split('$')[0]).toBe('hmac-sha256');
  expect(await h.bridge.secrets.verifyBridgePassword(mailbox, h.password)).toBe(true);
});
