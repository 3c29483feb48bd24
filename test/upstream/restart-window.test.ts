import { afterEach, expect, test } from 'vitest';
import { type Harness, mailbox, startHarness } from '../support/bridge-harness';
import { rawSession } from '../support/raw-session';

/**
 * The vendor counts 15 requests a second per mailbox, whichever process sends them. A bridge
 * started again right after the one before it, which was syncing with its window full, must
 * not add its own first requests to that window: the sandbox refuses none of them.
 */

let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
});

/** Resolves once the sandbox has admitted `n` requests of the mailbox (polled every 5 ms, 30 s at most). */
async function admitted(h: Harness, n: number): Promise<void> {
  for (let i = 0; i < 6000 && h.sandbox.stats(mailbox).requests < n; i++) await new Promise((r) => setTimeout(r, 5));
}

test('a bridge restarted while its window is full sends nothing the vendor refuses', async () => {
  const h = await startHarness({
    sandbox: { messages: 20_000, latencyMs: 30 },
    // the restart cuts the syncing session instead of waiting for its SELECT
    config: { limits: { shutdownDrainSeconds: 0 } },
  });
  harness = h;
  const first = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  first.send('s SELECT INBOX');
  await admitted(h, 16);
  await h.restart();
  first.close();
  const before = h.sandbox.stats(mailbox).requests;
  const again = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  again.send('s SELECT INBOX');
  await admitted(h, before + 15);
  const stats = h.sandbox.stats(mailbox);
  again.close();
  expect(stats.requests).toBeGreaterThanOrEqual(before + 15);
  expect(stats.rateLimited).toBe(0);
  expect(stats.maxPerSecond).toBe(15);
});
