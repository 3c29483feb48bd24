import { expect, test } from 'vitest';
import { rawSession } from '../../support/raw-session';
import { section, useServers } from './harness';

/**
 * LIST-STATUS (RFC 5819): `LIST ... RETURN (STATUS (...))` follows each selectable mailbox's
 * LIST line with its STATUS, and none for `Labels` (\Noselect), against Dovecot holding the
 * same folders and messages.
 */

const servers = useServers();

section('RFC 5819 LIST-STATUS', servers, [
  {
    // the folders both hold the same messages in (Sent is the vendor's own, not mirrored)
    name: 'the mirrored folders with MESSAGES UIDNEXT UNSEEN SIZE',
    commands: ['LIST "" (INBOX Drafts Archive Trash Labels) RETURN (STATUS (MESSAGES UIDNEXT UNSEEN SIZE))'],
  },
  {
    name: 'the label folders, with other return options',
    commands: ['LIST "" "Labels/*" RETURN (CHILDREN STATUS (MESSAGES UIDVALIDITY RECENT))'],
  },
  { name: 'a \\Noselect name has no STATUS', commands: ['LIST "" "Labels" RETURN (STATUS (MESSAGES))'] },
  {
    name: 'an invalid status item, or no list of items, is BAD',
    commands: ['LIST "" "%" RETURN (STATUS (FOO))', 'LIST "" "%" RETURN (STATUS)'],
  },
]);

test('both advertise LIST-STATUS; a STATUS line follows its LIST line', async () => {
  for (const server of [servers.current.dovecot, servers.current.bridge]) {
    const s = await rawSession(server.port, server.user, server.password);
    expect(await s.run('CAPABILITY')).toMatch(/^\* CAPABILITY .*\bLIST-STATUS\b/m);
    const lines = (await s.run('LIST "" "Drafts" RETURN (STATUS (MESSAGES))')).split('\r\n');
    expect(lines[0]).toMatch(/^\* LIST \(.*\) "\/" "?Drafts"?$/);
    expect(lines[1]).toMatch(/^\* STATUS "?Drafts"? \(MESSAGES \d+\)$/);
    s.close();
  }
});
