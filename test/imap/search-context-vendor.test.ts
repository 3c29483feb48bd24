import { expect, test } from 'vitest';
import type { VendorMessage } from '../../src/upstream/types';
import { control, mailbox } from '../support/bridge-harness';
import { untagged, useConformance } from '../support/conformance';

/**
 * RFC 5267 4.3: a search context with UPDATE follows changes made at the vendor (webmail, a
 * phone) that a poll brings in: new mail and flags, with the next command or at once in IDLE.
 */

const c = useConformance({ sandbox: { messages: 6 } });

test("a poll's new mail and flag changes reach the search contexts, in IDLE too", async () => {
  const s = await c.session('INBOX');
  await s.run('SEARCH RETURN (UPDATE) SUBJECT "Fresh context"');
  await s.run('UID SEARCH RETURN (UPDATE) SUBJECT "Fresh context" FLAGGED');
  await control(c.h.sandbox, 'POST', '/inject', {
    mailbox,
    message: { from: 'news@example.org', to: mailbox, subject: 'Fresh context', text: 'hello' },
  });
  await c.h.bridge.pollers[0].tick();
  const arrived = untagged(await s.run('NOOP'));
  const exists = arrived.findIndex((l) => / EXISTS$/.test(l));
  const seq = Number(arrived[exists]?.split(' ')[0]);
  expect(arrived.slice(exists + 1)).toContain(`ESEARCH (TAG "t3") ADDTO (0 ${seq})`);

  const [fresh] = (
    await control<{ messages: VendorMessage[] }>(
      c.h.sandbox,
      'GET',
      `/messages?mailbox=${encodeURIComponent(mailbox)}&folder=INBOX`,
    )
  ).messages.filter((m) => m.subject === 'Fresh context');
  const uid = Number(/UID (\d+)/.exec(await s.run(`FETCH ${seq} (UID)`))?.[1]);
  await s.exchange('w1 IDLE\r\n', /^\+ .*\r\n/m);
  await control(c.h.sandbox, 'POST', '/flags', { mailbox, message_uid: fresh.message_uid, is_starred: true });
  await c.h.bridge.pollers[0].tick();
  expect(await s.waitFor(/^\* ESEARCH \(TAG "t4"\) UID ADDTO .*\r\n/m)).toMatch(
    new RegExp(`^\\* ESEARCH \\(TAG "t4"\\) UID ADDTO \\(0 ${uid}\\)\\r\\n`, 'm'),
  );
  await control(c.h.sandbox, 'POST', '/flags', { mailbox, message_uid: fresh.message_uid, is_starred: false });
  await c.h.bridge.pollers[0].tick();
  expect(await s.waitFor(/^\* ESEARCH \(TAG "t4"\) UID REMOVEFROM .*\r\n/m)).toMatch(
    new RegExp(`^\\* ESEARCH \\(TAG "t4"\\) UID REMOVEFROM \\(0 ${uid}\\)\\r\\n`, 'm'),
  );
  await s.exchange('DONE\r\n', /^w1 OK.*\r\n/m);
  s.close();
});
