import { afterAll, beforeAll, expect, test } from 'vitest';
import { ManualClock } from '../support/manual-clock';
import { alice, bob, startSmtpHarness, type SmtpHarness } from './harness';

/**
 * 100 messages at once over 20 SMTP connections: every one is accepted, and the mail host never
 * sees more than 15 requests in any second or 15 in flight (the spec leaves the send route's
 * limits unstated, so the bridge keeps to the reading interface's).
 */

let h: SmtpHarness;
/** The vendor's seconds, its 100 ms latency and the gate's waits pass on it, not in real time. */
const vendorClock = new ManualClock();

beforeAll(async () => {
  h = await startSmtpHarness({ sandbox: { latencyMs: 100 }, vendorClock });
});

afterAll(async () => {
  await h?.close();
  vendorClock.stop();
});

/** Most request starts within any 1000 ms (of the vendor's clock). */
function busiestSecond(starts: number[]): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; j < sorted.length; j++) {
    while (sorted[j] - sorted[i] >= 1000) i++;
    best = Math.max(best, j - i + 1);
  }
  return best;
}

test('a 100-message burst is delivered within the vendor limits', async () => {
  const t = h.transport({ pool: true, maxConnections: 20, maxMessages: Infinity });
  const infos = await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      t.sendMail({
        from: alice,
        to: bob,
        subject: `burst ${i}`,
        text: `message ${i}`,
        messageId: `<burst-${i}@client.test>`,
      }),
    ),
  );
  expect(infos.every((info) => /^250 Sent to 1 recipient/.test(info.response))).toBe(true);
  expect(new Set(h.submitted.flatMap((s) => s.vendorIds)).size).toBe(100);

  const received = (await h.messages(bob)).filter((m) => m.subject.startsWith('burst '));
  expect(received.map((m) => m.subject).sort()).toEqual(Array.from({ length: 100 }, (_, i) => `burst ${i}`).sort());

  expect(h.wire.starts).toHaveLength(100);
  expect(busiestSecond(h.wire.starts)).toBeLessThanOrEqual(15);
  expect(h.wire.maxInFlight).toBeLessThanOrEqual(15);
});
