import { expect, test } from 'vitest';
import { control, mailbox } from '../support/bridge-harness';
import { status, untagged, useConformance } from '../support/conformance';

/**
 * NOTIFY (RFC 5465) over real sockets: what another session or a vendor poll changes reaches a
 * session that asked, without it sending a command: STATUS of other folders, LIST of label
 * folders created, renamed and deleted, and the selected folder's EXISTS with the fetch-atts
 * of the new message; after NOTIFY NONE, only what IMAP4rev1 sends.
 */

const c = useConformance({ sandbox: { messages: 6 } });

const inject = (subject: string) =>
  control(c.h.sandbox, 'POST', '/inject', {
    mailbox,
    message: { from: 'news@example.org', to: mailbox, subject, text: 'hello' },
  });

test('NOTIFY is offered; bad arguments and unsupported events are refused as Dovecot refuses them', async () => {
  const s = await c.session();
  expect(await s.run('CAPABILITY')).toMatch(/^\* CAPABILITY .* NOTIFY[ \r]/m);
  expect(status(await s.run('NOTIFY SET (SELECTED (MessageNew))'))).toBe(
    'BAD MessageNew and MessageExpunge must be together',
  );
  expect(status(await s.run('NOTIFY SET (PERSONAL (MessageNew ServerMetadataChange))'))).toBe(
    'NO [BADEVENT ServerMetadataChange] Unsupported NOTIFY events',
  );
  expect(status(await s.run('NOTIFY SET (SUBTREE "Labels" (SubscriptionChange MailboxName))'))).toBe(
    'OK NOTIFY completed',
  );
  s.close();
});

test("a poll's new mail reaches NOTIFY sessions unsolicited: STATUS where INBOX is not selected, EXISTS and FETCH where it is", async () => {
  const elsewhere = await c.session('Archive');
  const set = await elsewhere.run('NOTIFY SET STATUS (PERSONAL (MessageNew MessageExpunge FlagChange))');
  expect(status(set)).toBe('OK NOTIFY completed');
  // every folder but the selected one, with Dovecot's items
  const inbox = untagged(set).find((l) => /^STATUS "?INBOX"? /.test(l));
  expect(inbox).toMatch(/^STATUS "?INBOX"? \(MESSAGES \d+ UIDNEXT \d+ UIDVALIDITY \d+ UNSEEN \d+ HIGHESTMODSEQ \d+\)$/);
  expect(untagged(set).some((l) => /^STATUS "?Archive"? /.test(l))).toBe(false);
  const before = Number(/MESSAGES (\d+)/.exec(inbox ?? '')?.[1]);

  const selected = await c.session('INBOX');
  expect(
    status(
      await selected.run(
        'NOTIFY SET (SELECTED (MessageNew (UID FLAGS BODY.PEEK[HEADER.FIELDS (SUBJECT)]) MessageExpunge FlagChange))',
      ),
    ),
  ).toBe('OK NOTIFY completed');

  await inject('Pushed to the selected folder');
  await c.h.bridge.pollers[0].tick();
  expect(await elsewhere.waitFor(/^\* STATUS "?INBOX"? .*\r\n/m)).toMatch(
    new RegExp(`^\\* STATUS "?INBOX"? \\(MESSAGES ${before + 1} UIDNEXT \\d+ UNSEEN \\d+\\)\\r\\n`, 'm'),
  );
  const pushed = await selected.waitFor(/^\* \d+ FETCH \(.*\r\n.*\r\n\r\n\)\r\n/m);
  expect(pushed).toMatch(
    /^\* (\d+) EXISTS\r\n(?:\* \d+ RECENT\r\n)?\* \1 FETCH \(UID \d+ FLAGS \([^)]*\) BODY\[HEADER\.FIELDS \(SUBJECT\)\] \{\d+\}\r\nSubject: Pushed to the selected folder\r\n\r\n\)\r\n/m,
  );
  // nothing was asked: no tagged line came with them
  expect(pushed).not.toMatch(/^t\d+ OK (?!NOTIFY)/m);
  elsewhere.close();
  selected.close();
});

test('a label folder created, renamed and deleted in another session is announced by LIST; SELECTED NONE keeps EXISTS back', async () => {
  const s = await c.session('INBOX');
  expect(status(await s.run('NOTIFY SET (SELECTED NONE) (PERSONAL (MailboxName))'))).toBe('OK NOTIFY completed');
  const other = await c.session();
  expect(status(await other.run('CREATE Labels/Notified'))).toMatch(/^OK/);
  expect(await s.waitFor(/^\* LIST .*\r\n/m)).toMatch(/^\* LIST \(\) "\/" "?Labels\/Notified"?\r\n/m);
  expect(status(await other.run('RENAME Labels/Notified Labels/Renamed'))).toMatch(/^OK/);
  expect(await s.waitFor(/^\* LIST .*OLDNAME.*\r\n/m)).toMatch(
    /^\* LIST \(\) "\/" "?Labels\/Renamed"? \("OLDNAME" \("?Labels\/Notified"?\)\)\r\n/m,
  );
  expect(status(await other.run('DELETE Labels/Renamed'))).toMatch(/^OK/);
  expect(await s.waitFor(/^\* LIST \(\\NonExistent\).*\r\n/m)).toMatch(
    /^\* LIST \(\\NonExistent\) "\/" "?Labels\/Renamed"?\r\n/m,
  );

  await inject('Not announced');
  await c.h.bridge.pollers[0].tick();
  expect(await s.run('NOOP')).not.toMatch(/EXISTS|RECENT/);
  // NOTIFY NONE: the IMAP4rev1 behaviour again, for what arrives from now on
  expect(status(await s.run('NOTIFY NONE'))).toBe('OK NOTIFY completed');
  await inject('Announced again');
  await c.h.bridge.pollers[0].tick();
  expect(await s.run('NOOP')).toMatch(/^\* \d+ EXISTS\r\n/m);
  other.close();
  s.close();
});

test("SELECTED sends another session's EXPUNGE at once; SELECTED-DELAYED keeps it for a command", async () => {
  const s = await c.session('Drafts');
  const other = await c.session('Drafts');
  const appendAndExpunge = async (subject: string) => {
    const appended = await other.append('Drafts', `Subject: ${subject}\r\n\r\nbody\r\n`, '()');
    const uid = Number(/APPENDUID \d+ (\d+)/.exec(appended)?.[1]);
    expect(status(await other.run(`UID STORE ${uid} +FLAGS.SILENT (\\Deleted)`))).toMatch(/^OK/);
    expect(status(await other.run(`UID EXPUNGE ${uid}`))).toMatch(/^OK/);
  };

  expect(
    status(await s.run('NOTIFY SET (SELECTED-DELAYED (MessageNew MessageExpunge)) (PERSONAL (MailboxName))')),
  ).toBe('OK NOTIFY completed');
  const start = s.transcript().length;
  await appendAndExpunge('delayed');
  // a name change after the expunge: what the session heard by then shows the EXPUNGE held
  expect(status(await other.run('CREATE Labels/Marker'))).toMatch(/^OK/);
  await s.waitFor(/^\* LIST .*Marker.*\r\n/m);
  const heard = s.transcript().slice(start);
  expect(heard).toMatch(/^\* \d+ EXISTS\r\n/m);
  expect(heard).not.toMatch(/EXPUNGE/);
  expect(await s.run('NOOP')).toMatch(/^\* \d+ EXPUNGE\r\n/m);

  expect(status(await s.run('NOTIFY SET (SELECTED (MessageNew MessageExpunge))'))).toBe('OK NOTIFY completed');
  await appendAndExpunge('at once');
  expect(await s.waitFor(/^\* \d+ EXPUNGE\r\n/m)).toMatch(/^\* \d+ EXISTS\r\n(?:.*\r\n)*\* \d+ EXPUNGE\r\n/m);
  other.close();
  s.close();
});

test("in IDLE, NOTIFY's selected-mailbox events come with MessageNew's fetch-atts", async () => {
  const s = await c.session('INBOX');
  expect(status(await s.run('NOTIFY SET (SELECTED (MessageNew (UID ENVELOPE) MessageExpunge))'))).toBe(
    'OK NOTIFY completed',
  );
  await s.exchange('w1 IDLE\r\n', /^\+ .*\r\n/m);
  await inject('Heard in IDLE');
  await c.h.bridge.pollers[0].tick();
  expect(await s.waitFor(/^\* \d+ FETCH .*\r\n/m)).toMatch(
    /^\* (\d+) EXISTS\r\n(?:\* \d+ RECENT\r\n)?\* \1 FETCH \(UID \d+ ENVELOPE \([^\r\n]*"Heard in IDLE"/m,
  );
  expect(await s.exchange('DONE\r\n', /^w1 .*\r\n/m)).toMatch(/^w1 OK/m);
  s.close();
});

test('several messages of one poll: one FETCH of the fetch-atts each, after their EXISTS', async () => {
  const s = await c.session('INBOX');
  expect(status(await s.run('NOTIFY SET (SELECTED (MessageNew (UID) MessageExpunge))'))).toBe('OK NOTIFY completed');
  const start = s.transcript().length;
  await inject('First of two');
  await inject('Second of two');
  await c.h.bridge.pollers[0].tick();
  await s.waitFor(/^\* \d+ FETCH \(UID \d+\)\r\n(?:.*\r\n)*\* \d+ FETCH \(UID \d+\)\r\n/m);
  const heard = s.transcript().slice(start);
  const exists = Number(/^\* (\d+) EXISTS\r\n/m.exec(heard)?.[1]);
  const fetched = [...heard.matchAll(/^\* (\d+) FETCH \(UID \d+\)\r\n/gm)].map((m) => Number(m[1]));
  expect(fetched).toEqual([exists - 1, exists]);
  expect(heard.indexOf('EXISTS')).toBeLessThan(heard.indexOf('FETCH'));
  s.close();
});
