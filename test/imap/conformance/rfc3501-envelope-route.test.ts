import { beforeAll } from 'vitest';
import { appendToBoth, section, useServers } from './harness';

/**
 * RFC 3501 7.4.2 ENVELOPE: an address's second field is its source route (adl), RFC 822's
 * route in an angle-addr (`<@relay:user@domain>`, RFC 5322 4.4 obs-route). Dovecot gives it
 * as written, the relays joined by commas without spaces or comments (imaptest's
 * fetch-envelope); a route-like text inside a quoted display name is no route.
 */

const servers = useServers();

const message = [
  'Date: Thu, 15 Feb 2007 01:02:03 +0200',
  'From: <@route:user@domain>',
  'To: Relayed <@a.example, (relay) @b.example:u2@d2.org>, plain@d3.org',
  'Cc: "quoted <@fake:x@y.org>" <x@y.org>, group: <@g.example:m@d4.org>;',
  'Subject: routes',
  '',
  'body',
  '',
].join('\r\n');

let uid = 0;

beforeAll(async () => {
  uid = await appendToBoth(servers.current, message);
});

section(
  'RFC 3501 7.4.2 ENVELOPE: source routes',
  servers,
  [
    {
      name: 'a route before the mailbox, two relays, a quoted look-alike and a route in a group',
      get commands() {
        return [`UID FETCH ${uid} (ENVELOPE)`];
      },
    },
  ],
  ['EXAMINE Drafts'],
);
