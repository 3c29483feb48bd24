import { expect, test } from 'vitest';
import { rawSession } from '../../support/raw-session';
import { section, useServers } from './harness';

/**
 * RFC 5957 SORT=DISPLAY: DISPLAYFROM and DISPLAYTO, on the vendor's messages and on drafts
 * whose first From and To addresses have display names, encoded words, quotes, comments,
 * groups, no domain or no address at all.
 */

const servers = useServers();

/** A draft with these header lines and a one-line body. */
const draft = (headers: string[]) => `${[...headers, 'MIME-Version: 1.0', '', 'body', ''].join('\r\n')}`;

const messages = [
  draft(['From: foo bar <a@b.c>', 'To: =?ISO-8859-1?Q?=C9mile?= <zz@example.test>']),
  draft(['From: b@c.d', 'To: team: xx@example.test, yy@example.test;']),
  draft(['From: d', 'To: "Quoted, Name" <q@example.test>']),
  draft(['From: =?iso-8859-1?q?foo_aar?= <e@f.g>', 'To: empty:;']),
  draft(['From: "" <c@example.test>', 'To: mm@example.test (Comment Name)']),
  draft(['From: Émile Zola <ez@example.test>, Aaron <a@example.test>', 'To: emile <e2@example.test>']),
  draft(['Subject: no addresses']),
  draft(['From: =?UTF-8?B?0JDQvdC90LA=?= <anna@example.test>', 'To: ZED <z@example.test>']),
];

section(
  'RFC 5957 SORT=DISPLAY: the vendor messages',
  servers,
  [
    {
      name: 'each display key, REVERSE, UID SORT and with other keys',
      commands: [
        'SORT (DISPLAYFROM) UTF-8 ALL',
        'SORT (DISPLAYTO) UTF-8 ALL',
        'UID SORT (REVERSE DISPLAYFROM) UTF-8 ALL',
        'SORT (DISPLAYTO REVERSE ARRIVAL) UTF-8 SEEN',
      ],
    },
    { name: 'errors', commands: ['SORT (DISPLAY) UTF-8 ALL', 'SORT (DISPLAYFROM REVERSE) UTF-8 ALL'] },
  ],
  ['EXAMINE INBOX'],
);

section(
  'RFC 5957 SORT=DISPLAY: display names, addresses and groups',
  servers,
  [
    {
      name: 'the messages',
      setup: [],
      commands: messages.map((message) => ({ append: 'Drafts', message })),
    },
    {
      name: 'each display key',
      commands: [
        'SORT (DISPLAYFROM) UTF-8 ALL',
        'SORT (DISPLAYTO) UTF-8 ALL',
        'SORT (REVERSE DISPLAYFROM) UTF-8 ALL',
        'UID SORT (REVERSE DISPLAYTO) UTF-8 ALL',
      ],
    },
  ],
  ['EXAMINE Drafts'],
);

test('SORT=DISPLAY advertised, as by Dovecot', async () => {
  for (const server of [servers.current.bridge, servers.current.dovecot]) {
    const s = await rawSession(server.port, server.user, server.password);
    const capabilities = (await s.run('CAPABILITY')).split(/\s+/);
    s.close();
    expect(capabilities).toContain('SORT=DISPLAY');
  }
});
