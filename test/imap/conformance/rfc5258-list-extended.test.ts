import { expect, test } from 'vitest';
import { rawSession } from '../../support/raw-session';
import { section, useServers } from './harness';

/**
 * LIST-EXTENDED (RFC 5258) with SPECIAL-USE (RFC 6154), against Dovecot holding the same
 * folders: `Labels` is the parent of the label folders, a name that holds no messages
 * (\Noselect), whatever the options. The bridge has every folder subscribed (the vendor has
 * no subscriptions): Dovecot's INBOX is subscribed first so both hold the same.
 */

const servers = useServers();

section('RFC 6154 RETURN (SPECIAL-USE)', servers, [
  { name: 'every folder, the \\Noselect parent kept', commands: ['LIST "" "*" RETURN (SPECIAL-USE)'] },
  { name: 'only the special-use folders', commands: ['LIST (SPECIAL-USE) "" "*" RETURN (SPECIAL-USE)'] },
  { name: 'the special-use selection alone', commands: ['LIST (SPECIAL-USE) "" "*"'] },
]);

section(
  'RFC 5258 LIST-EXTENDED',
  servers,
  [
    { name: 'RETURN (CHILDREN)', commands: ['LIST "" "*" RETURN (CHILDREN)', 'LIST "" "%" RETURN (CHILDREN)'] },
    { name: 'the SUBSCRIBED selection', commands: ['LIST (SUBSCRIBED) "" "*"', 'LIST (SUBSCRIBED REMOTE) "" "%"'] },
    {
      name: 'RECURSIVEMATCH: CHILDINFO for a parent whose subscribed children the pattern leaves out',
      commands: [
        'LIST (SUBSCRIBED RECURSIVEMATCH) "" "%"',
        'LIST (SUBSCRIBED RECURSIVEMATCH) "" "*"',
        'LIST (SUBSCRIBED RECURSIVEMATCH) "" "Labels"',
      ],
    },
    { name: 'RETURN (SUBSCRIBED CHILDREN)', commands: ['LIST "" "%" RETURN (SUBSCRIBED CHILDREN)'] },
    {
      name: 'several patterns, empty options',
      commands: ['LIST "" ("INBOX" "Labels/%")', 'LIST () "" "%" RETURN ()', 'LIST (REMOTE) "" "%"'],
    },
    {
      name: 'unknown or incomplete options are BAD',
      commands: [
        'LIST (RECURSIVEMATCH) "" "%"',
        'LIST (RECURSIVEMATCH REMOTE) "" "%"',
        'LIST (FOO) "" "*"',
        'LIST "" "*" RETURN (FOO)',
      ],
    },
  ],
  ['SUBSCRIBE INBOX'],
);

test('both advertise LIST-EXTENDED', async () => {
  for (const server of [servers.current.dovecot, servers.current.bridge]) {
    const s = await rawSession(server.port, server.user, server.password);
    expect(await s.run('CAPABILITY')).toMatch(/^\* CAPABILITY .*\bLIST-EXTENDED\b/m);
    s.close();
  }
});
