import net from 'node:net';
import { once } from 'node:events';
import { expect, test } from 'vitest';
import { startHarness } from './bridge-harness';

test('restart listens on fresh ports: another process taking the old one in between cannot fail it', async () => {
  const h = await startHarness({ sandbox: { messages: 2 } });
  const taker = net.createServer();
  try {
    const old = h.bridge.ports.imap;
    const close = h.bridge.close;
    // what a parallel test file's listen(0) or outgoing connection can do while the bridge is down
    h.bridge.close = async () => {
      await close();
      taker.listen(old, '127.0.0.1');
      await once(taker, 'listening');
    };
    await h.restart();
    expect(h.bridge.ports.imap).not.toBe(old);
    const client = await h.client();
    expect((await client.mailboxOpen('INBOX')).exists).toBe(2);
    await client.logout();
  } finally {
    taker.close();
    await h.close();
  }
});
