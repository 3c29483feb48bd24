import { expect, test } from 'vitest';
import { SecretStore, importInitialTokens } from '../../src/store/secrets';
import { VendorClient } from '../../src/upstream/vendor-client';
import { mailbox, useUpstreamHarness } from './harness';

const h = useUpstreamHarness({ messages: 20 });

/**
 * A write waits for its turn in the mailbox's gate; meanwhile the node may lose the mailbox (its
 * lease runs out during a partition). The write is checked as it is sent, not only when it was
 * issued: once the node may no longer write, it never reaches the vendor.
 */
test('a write that waited in the gate while the mailbox was lost is not sent', async () => {
  await h.fresh();
  let held = true;
  const secrets = SecretStore.open(h.stateDir);
  importInitialTokens(h.config, secrets);
  const client = new VendorClient(
    h.config.vendor,
    h.config.assumptions,
    secrets,
    h.logger,
    // one request at a time: the write queues behind the read
    { maxInFlight: 1 },
    undefined,
    h.clock,
    () => {
      if (!held) throw new Error('writes refused: this node no longer owns the mailbox');
    },
  );
  h.clients.push(client);
  const api = client.mailbox(mailbox);
  const { threads } = await api.listThreads({ folder: 'INBOX', limit: 5 });
  const id = threads[0].message_uids[0];
  h.sandbox.resetStats();

  const reading = api.listThreads({ folder: 'INBOX', limit: 5 });
  const writing = api.setFlags([id], { is_starred: true }).then(
    () => null,
    (err: Error) => err.message,
  );
  // the write is waiting for the read's slot when the mailbox is lost
  held = false;
  await reading;
  expect(await writing).toMatch(/writes refused/);
  expect(h.sandbox.stats(mailbox).commands.flag ?? 0).toBe(0);
  const { messages } = await api.readBack([id]);
  expect(messages[0].is_starred).toBe(false);

  // held again, the same write goes out
  held = true;
  await api.setFlags([id], { is_starred: true });
  expect(h.sandbox.stats(mailbox).commands.flag).toBe(1);
});
