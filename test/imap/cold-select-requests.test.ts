import { afterAll, beforeAll, expect, test } from 'vitest';
import { mailbox, startHarness, type Harness } from '../support/bridge-harness';
import { ManualClock } from '../support/manual-clock';
import { rawSession } from '../support/raw-session';

/**
 * A cold account's first SELECT of INBOX lists the folder page after page (each page needs the
 * previous one's cursor), and each page's request also carries the get_messages of the page
 * before it (20 commands a request, 50 ids a command); the last page's messages need a request
 * of their own. The folder list the SELECT needs travels with the first page, so the sync
 * makes no request beyond that minimum but the attachment downloads (GET /v1/raw, which no
 * request can carry).
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ sandbox: { messages: 600 }, vendorClock: new ManualClock() });
});
afterAll(() => h.close());

test("a cold SELECT INBOX makes the fewest requests the vendor's limits allow", async () => {
  const inbox = h.sandbox.store.mailbox(mailbox)!.dump('INBOX');
  const pages = Math.ceil(new Set(inbox.map((m) => m.threadId)).size / 100);
  const gets = Math.ceil(inbox.length / 50);
  const fewest = pages + Math.max(1, Math.ceil((gets - 19 * (pages - 1)) / 20));
  expect(pages).toBeGreaterThan(1);
  // a client whose first command after LOGIN is the SELECT
  const imap = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  h.sandbox.resetStats();
  expect(await imap.run('SELECT INBOX')).toContain(`* ${inbox.length} EXISTS`);
  const stats = h.sandbox.stats(mailbox);
  expect(stats.requests - stats.rawDownloads).toBe(fewest);
  imap.close();
});
