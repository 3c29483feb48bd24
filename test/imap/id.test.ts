import { afterAll, beforeAll, expect, test } from 'vitest';
import { startHarness, mailbox, type Harness } from '../support/bridge-harness';
import { rawSession } from '../support/raw-session';

/** RFC 2971 ID: the client's field list, whose values may be NIL. */

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ sandbox: { messages: 1 } });
});

afterAll(async () => {
  await h?.close();
});

test('a NIL value in the client ID is taken, and the server answers with its own ID', async () => {
  const s = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  const answer = await s.run('ID ("name" "x" "os" NIL "version" "1.0")');
  expect(answer).toMatch(/^\* ID \(.*"name"/m);
  expect(answer).toMatch(/^t2 OK/m);
  expect(await s.run('NOOP')).toMatch(/^t3 OK/m);
  s.close();
});

test('ID NIL and an ID of NIL values alone are answered OK', async () => {
  const s = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  expect(await s.run('ID NIL')).toMatch(/^t2 OK/m);
  expect(await s.run('ID ("os" NIL)')).toMatch(/^t3 OK/m);
  s.close();
});
