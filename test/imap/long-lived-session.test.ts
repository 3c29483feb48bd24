import { afterAll, beforeAll, expect, test } from 'vitest';
import { startHarness, mailbox, type Harness } from '../support/bridge-harness';
import { rawSession } from '../support/raw-session';

/**
 * A client that stays connected for days switches folders thousands of times on one
 * connection (local-first SELECT answers in about a millisecond); no count of SELECT,
 * EXAMINE or EXPUNGE ends its session.
 */

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ sandbox: { messages: 2 } });
});

afterAll(async () => {
  await h?.close();
});

test('1,200 SELECT, EXAMINE and EXPUNGE commands on one connection are all answered OK', async () => {
  const s = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  const statuses = new Set<string>();
  for (let i = 0; i < 1200; i++) {
    for (const command of [i % 2 ? 'SELECT INBOX' : 'EXAMINE Archive', 'SELECT Drafts', 'EXPUNGE']) {
      const answer = await s.run(command);
      statuses.add(/^t\d+ (\w+)/m.exec(answer)?.[1] ?? answer);
    }
  }
  expect([...statuses]).toEqual(['OK']);
  expect(s.transcript()).not.toMatch(/^\* BYE/m);
  s.close();
});
