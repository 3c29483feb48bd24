import { beforeAll } from 'vitest';
import { appendToBoth, section, useServers } from './harness';

/**
 * RFC 3501 7.4.2 ENVELOPE address lists with RFC 5322 3.4 group syntax: a group is its start
 * (NIL NIL name NIL), its members and its end (NIL NIL NIL NIL); a group without members
 * (`group:;`, or only a comment inside) is its start and end alone, as Dovecot answers
 * (imaptest's fetch-envelope).
 */

const servers = useServers();

const message = [
  'Date: Thu, 15 Feb 2007 01:02:03 +0200',
  'From: user@domain (Real Name)',
  'To: group: g1@d1.org, g2@d2.org;, group2: g3@d3.org;',
  'Cc: group:;, group2: (foo) ;',
  'Subject: groups',
  '',
  'body',
  '',
].join('\r\n');

let uid = 0;

beforeAll(async () => {
  uid = await appendToBoth(servers.current, message);
});

section(
  'RFC 3501 7.4.2 ENVELOPE: group syntax',
  servers,
  [
    {
      name: 'groups with members, an empty group and a group holding only a comment',
      get commands() {
        return [`UID FETCH ${uid} (ENVELOPE)`];
      },
    },
  ],
  ['EXAMINE Drafts'],
);
