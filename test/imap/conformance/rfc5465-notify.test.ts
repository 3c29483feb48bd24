import { expect, test } from 'vitest';
import { rawSession } from '../../support/raw-session';
import { section, useServers, type Servers } from './harness';
import { normalise } from './normalise';

/**
 * RFC 5465 NOTIFY against Dovecot 2.3 with its notify plugin (Debian's dovecot-imapd has it:
 * `mail_plugins = notify` makes it offer NOTIFY). The command's answers in one session, then
 * what a NOTIFY session hears, unsolicited, while another session changes Drafts (the folder
 * both can APPEND to) and creates, renames and deletes a label folder.
 */

const servers = useServers({ notify: true });

section('RFC 5465 3 NOTIFY: arguments', servers, [
  { name: 'MessageNew without MessageExpunge', commands: ['NOTIFY SET (SELECTED (MessageNew))'] },
  { name: 'FlagChange without the message events', commands: ['NOTIFY SET (SELECTED (FlagChange))'] },
  { name: 'SELECTED twice', commands: ['NOTIFY SET (SELECTED NONE) (SELECTED-DELAYED NONE)'] },
  {
    name: 'a fetch macro among the fetch-atts',
    commands: ['NOTIFY SET (SELECTED (MessageNew (FAST) MessageExpunge))'],
  },
  { name: 'an unknown event', commands: ['NOTIFY SET (SELECTED (Foo))'] },
  {
    name: 'METADATA events',
    commands: ['NOTIFY SET (PERSONAL (MessageNew MailboxMetadataChange ServerMetadataChange))'],
  },
  { name: 'an empty event list', commands: ['NOTIFY SET (PERSONAL ())'] },
  { name: 'no verb, an unknown verb', commands: ['NOTIFY', 'NOTIFY FOO'] },
  {
    name: 'NONE, SET alone, and every filter',
    commands: [
      'NOTIFY NONE',
      'NOTIFY SET',
      'NOTIFY SET (SELECTED-DELAYED (MessageNew (UID BODY.PEEK[HEADER]) MessageExpunge FlagChange)) (INBOXES (MessageNew MessageExpunge))',
      'NOTIFY SET (SUBSCRIBED (MessageNew MessageExpunge)) (SUBTREE (Labels Archive) (MailboxName)) (MAILBOXES Trash NONE)',
      'NOTIFY SET (PERSONAL (MailboxName SubscriptionChange))',
    ],
  },
]);

section(
  'RFC 5465 3.1 NOTIFY SET STATUS: the STATUS of the mailboxes named',
  servers,
  [
    { name: 'MessageExpunge', commands: ['NOTIFY SET STATUS (MAILBOXES Drafts (MessageExpunge))'] },
    { name: 'MessageNew', commands: ['NOTIFY SET STATUS (MAILBOXES Drafts (MessageNew))'] },
    { name: 'FlagChange adds HIGHESTMODSEQ', commands: ['NOTIFY SET STATUS (MAILBOXES (Drafts Trash) (FlagChange))'] },
    {
      name: 'a subtree',
      commands: ['NOTIFY SET STATUS (SUBTREE Labels (MessageNew MessageExpunge))'],
      differs:
        'Dovecot 2.3 names Labels/été in UTF-8, as a literal, in a session without UTF8=ACCEPT; the bridge in modified UTF-7 (RFC 3501 5.1.3), as its LIST does',
    },
    {
      name: 'a subtree of ASCII names',
      commands: ['NOTIFY SET STATUS (SUBTREE (Labels/Later Labels/Receipts) (MessageNew))'],
    },
    {
      name: 'not the selected mailbox',
      commands: ['NOTIFY SET STATUS (MAILBOXES (Drafts INBOX) (MessageNew MessageExpunge))'],
    },
    { name: 'MailboxName alone sends none', commands: ['NOTIFY SET STATUS (PERSONAL (MailboxName))'] },
  ],
  ['SELECT INBOX'],
);

type Step = { by: 'other'; command: string } | { append: string };

/**
 * A session that ran `setup` (a SELECT) and the NOTIFY given; another session runs `steps`; after
 * each, what the first heard unsolicited until `heard` matched (Dovecot's notifications come
 * from its index watcher, a moment later), normalised.
 */
async function heard(
  server: Servers['bridge'],
  setup: readonly string[],
  notify: string,
  steps: ReadonlyArray<{ step: Step; until: RegExp | null }>,
): Promise<string[][]> {
  const listener = await rawSession(server.port, server.user, server.password);
  const other = await rawSession(server.port, server.user, server.password);
  try {
    for (const command of setup) expect(await listener.run(command)).toMatch(/^t\d+ OK/m);
    expect(await listener.run(notify)).toMatch(/^t\d+ OK/m);
    const out: string[][] = [];
    let seen = listener.transcript().length;
    for (const { step, until } of steps) {
      // Dovecot watches the selected mailbox again only 1 s after the session's last command or
      // notification (IMAP_NOTIFY_WATCH_ADD_DELAY_MSECS), and misses what changed before; the
      // bridge needs no wait
      await new Promise((resolve) => setTimeout(resolve, dovecotWatchDelayMs));
      const answer = 'append' in step ? await other.append('Drafts', step.append, '()') : await other.run(step.command);
      expect(answer).toMatch(/^t\d+ OK/m);
      if (until) await listener.waitFor(until);
      const all = listener.transcript();
      out.push(normalise(all.slice(seen)));
      seen = all.length;
    }
    return out;
  } finally {
    listener.close();
    other.close();
  }
}

const dovecotWatchDelayMs = 1500;

const draft = (subject: string) => `From: Ann <ann@example.test>\r\nSubject: ${subject}\r\n\r\nbody\r\n`;

test('RFC 5465 5: the selected mailbox changes at once, with the fetch-atts of new messages; other mailboxes by STATUS; names by LIST', async () => {
  const notify =
    'NOTIFY SET (SELECTED (MessageNew (UID FLAGS BODY.PEEK[HEADER.FIELDS (SUBJECT)]) MessageExpunge FlagChange)) (PERSONAL (MessageNew MessageExpunge FlagChange MailboxName))';
  const steps = [
    { step: { append: draft('notified one') }, until: /^\* \d+ FETCH .*\r\n.*\r\n\r\n\)\r\n/m },
    { step: { by: 'other', command: 'SELECT Drafts' }, until: null },
    { step: { by: 'other', command: 'STORE 1 +FLAGS (\\Flagged)' }, until: /^\* 1 FETCH .*\r\n/m },
    { step: { by: 'other', command: 'SELECT INBOX' }, until: null },
    { step: { by: 'other', command: 'CREATE Labels/Notified' }, until: /^\* LIST .*\r\n/m },
    { step: { by: 'other', command: 'RENAME Labels/Notified Labels/Renamed' }, until: /^\* LIST .*OLDNAME.*\r\n/m },
    { step: { by: 'other', command: 'DELETE Labels/Renamed' }, until: /^\* LIST \(\\NonExistent\).*\r\n/m },
  ] as const;
  const dovecot = await heard(servers.current.dovecot, ['SELECT Drafts'], notify, steps);
  const bridge = await heard(servers.current.bridge, ['SELECT Drafts'], notify, steps);
  expect(bridge).toEqual(dovecot);
});

test('RFC 5465 5.2-5.4: new messages and flag changes of a mailbox not selected come as STATUS', async () => {
  const notify =
    'NOTIFY SET (SELECTED (MessageNew MessageExpunge)) (MAILBOXES Drafts (MessageNew MessageExpunge FlagChange))';
  const steps = [
    { step: { append: draft('notified two') }, until: /^\* STATUS .*\r\n/m },
    { step: { by: 'other', command: 'SELECT Drafts' }, until: null },
    // no \Seen change, no UNSEEN change: nothing is sent (Dovecot sends HIGHESTMODSEQ only with CONDSTORE)
    { step: { by: 'other', command: 'STORE 1 +FLAGS (\\Flagged)' }, until: null },
    { step: { by: 'other', command: 'STORE 1 +FLAGS (\\Seen)' }, until: /^\* STATUS .*\r\n/m },
    { step: { by: 'other', command: 'STORE 1 -FLAGS (\\Seen)' }, until: /^\* STATUS .*\r\n/m },
  ] as const;
  const dovecot = await heard(servers.current.dovecot, ['SELECT INBOX'], notify, steps);
  const bridge = await heard(servers.current.bridge, ['SELECT INBOX'], notify, steps);
  expect(bridge).toEqual(dovecot);
});

test('RFC 5465 5.3-5.4 with CONDSTORE: every change of a mailbox not selected carries HIGHESTMODSEQ', async () => {
  const notify = 'NOTIFY SET (MAILBOXES Drafts (MessageNew MessageExpunge FlagChange))';
  const steps = [
    { step: { append: draft('notified three') }, until: /^\* STATUS .*\r\n/m },
    { step: { by: 'other', command: 'SELECT Drafts' }, until: null },
    // \Seen unchanged: HIGHESTMODSEQ alone
    { step: { by: 'other', command: 'STORE 1 +FLAGS (\\Answered)' }, until: /^\* STATUS .*\r\n/m },
    { step: { by: 'other', command: 'STORE 1 +FLAGS (\\Seen)' }, until: /^\* STATUS .*\r\n/m },
  ] as const;
  const setup = ['ENABLE CONDSTORE', 'SELECT INBOX'];
  const dovecot = await heard(servers.current.dovecot, setup, notify, steps);
  const bridge = await heard(servers.current.bridge, setup, notify, steps);
  expect(bridge).toEqual(dovecot);
});
