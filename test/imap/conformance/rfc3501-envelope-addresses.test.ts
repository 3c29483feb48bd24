import { beforeAll } from 'vitest';
import { appendToBoth, section, useServers } from './harness';

/**
 * RFC 3501 7.4.2 ENVELOPE address lists, as Dovecot answers them (imaptest's fetch-envelope):
 * - RFC 5322 3.4 group syntax: a group is its start (NIL NIL name NIL), its members and its end
 *   (NIL NIL NIL NIL); a group without members (`group:;`, or only a comment inside) is its
 *   start and end alone;
 * - an address's second field is its source route (adl), RFC 822's route in an angle-addr
 *   (`<@relay:user@domain>`, RFC 5322 4.4 obs-route), as written, the relays joined by commas
 *   without spaces or comments; a route-like text inside a quoted display name is no route.
 */

const servers = useServers();

const drafts = {
  groups: [
    'From: user@domain (Real Name)',
    'To: group: g1@d1.org, g2@d2.org;, group2: g3@d3.org;',
    'Cc: group:;, group2: (foo) ;',
  ],
  routes: [
    'From: <@route:user@domain>',
    'To: Relayed <@a.example, (relay) @b.example:u2@d2.org>, plain@d3.org',
    'Cc: "quoted <@fake:x@y.org>" <x@y.org>, group: <@g.example:m@d4.org>;',
  ],
};

const message = (subject: string, addresses: string[]) =>
  ['Date: Thu, 15 Feb 2007 01:02:03 +0200', ...addresses, `Subject: ${subject}`, '', 'body', ''].join('\r\n');

const uids = { groups: 0, routes: 0 };

beforeAll(async () => {
  uids.groups = await appendToBoth(servers.current, message('groups', drafts.groups));
  uids.routes = await appendToBoth(servers.current, message('routes', drafts.routes));
});

section(
  'RFC 3501 7.4.2 ENVELOPE: address lists',
  servers,
  [
    {
      name: 'groups with members, an empty group and a group holding only a comment',
      get commands() {
        return [`UID FETCH ${uids.groups} (ENVELOPE)`];
      },
    },
    {
      name: 'a route before the mailbox, two relays, a quoted look-alike and a route in a group',
      get commands() {
        return [`UID FETCH ${uids.routes} (ENVELOPE)`];
      },
    },
  ],
  ['EXAMINE Drafts'],
);
