import { ImapFlow } from 'imapflow';
import { describe, expect, test } from 'vitest';
import { control, mailbox, useImapSession } from '../support/bridge-harness';

// The config spells the mailbox with capitals; the vendor, clients and the bridge's own records
// must all meet on one account whatever the spelling.
const s = useImapSession({ spelling: 'Alice@Sandbox.TEST' });

async function login(user: string): Promise<ImapFlow> {
  const client = new ImapFlow({
    host: '127.0.0.1',
    port: s.h.bridge.ports.imap,
    secure: false,
    doSTARTTLS: false,
    auth: { user, pass: s.h.password },
    logger: false,
  });
  await client.connect();
  return client;
}

describe('a mailbox spelled with capitals in the config', () => {
  test('LOGIN works in any case', async () => {
    for (const user of ['alice@sandbox.test', 'ALICE@SANDBOX.TEST', 'Alice@Sandbox.TEST']) {
      const client = await login(user);
      expect((await client.mailboxOpen('INBOX')).exists).toBeGreaterThan(0);
      await client.logout();
    }
  });

  test('an IDLE client hears of new mail', async () => {
    const client = await login('alice@sandbox.test');
    const before = (await client.mailboxOpen('INBOX')).exists; // imapflow updates the mailbox object itself
    const seenExists = new Promise<number>((resolve) =>
      client.on('exists', (e: { count: number }) => e.count > before && resolve(e.count)),
    );
    void client.idle();
    await control(s.h.sandbox, 'POST', '/inject', {
      mailbox,
      message: { from: 'news@example.org', to: mailbox, subject: 'Fresh news', text: 'hello' },
    });
    await s.h.bridge.pollers[0].tick();
    expect(await seenExists).toBe(before + 1);
    await client.logout();
  });

  test('metrics name the account with one spelling', async () => {
    const res = await fetch(`http://127.0.0.1:${s.h.bridge.ports.ops}/metrics`);
    const spellings = new Set(
      [...(await res.text()).matchAll(/(?:account|mailbox)="([^"]+)"/g)]
        .map((m) => m[1])
        .filter((a) => /alice/i.test(a)),
    );
    expect([...spellings]).toEqual(['alice@sandbox.test']);
  });
});
