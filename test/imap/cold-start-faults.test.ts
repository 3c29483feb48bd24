import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mailbox, startHarness, type Harness } from '../support/bridge-harness';
import { ManualClock } from '../support/manual-clock';
import { rawSession } from '../support/raw-session';

/**
 * A vendor having bad minutes: 10% of the requests to every route fail (an internal error per
 * command or request, 503, a connection reset). A fresh state's first SELECT and a full FETCH
 * must come through the retries with the bytes a fault-free run gives, within the vendor's limits.
 */

const faults = { errorRate: 0.03, unavailableRate: 0.02, resetRate: 0.02, truncateRate: 0.03 };

let h: Harness;
/** The retries' backoff and the vendor's rate windows: no real second waited out. */
const vendorClock = new ManualClock();

beforeAll(async () => {
  h = await startHarness({ sandbox: { messages: 60, seed: 2, faults }, vendorClock });
});

afterAll(async () => {
  await h?.close();
  vendorClock.stop();
});

/** SELECT INBOX and every message's bytes, as a fresh client of `port` gets them. */
async function inbox(port: number, password: string): Promise<string> {
  const s = await rawSession(port, mailbox, password);
  try {
    const selected = await s.run('SELECT INBOX');
    expect(selected).toMatch(/^t\d+ OK/m);
    const fetched = await s.run('UID FETCH 1:* BODY.PEEK[]');
    expect(fetched).toMatch(/^t\d+ OK/m);
    return fetched;
  } finally {
    s.close();
  }
}

describe('a cold start under transient faults', () => {
  test('the first SELECT and a full FETCH succeed with the bytes of a fault-free run, no 429', async () => {
    h.sandbox.resetStats();
    const underFaults = await inbox(h.bridge.ports.imap, h.password);
    expect(h.sandbox.stats(mailbox).rateLimited).toBe(0);
    expect(underFaults.match(/^\* \d+ FETCH/gm)?.length).toBeGreaterThan(30);

    h.sandbox.setFaults({});
    const faultFree = await startHarness({ vendor: h.sandbox, vendorClock });
    try {
      expect(underFaults).toBe(await inbox(faultFree.bridge.ports.imap, faultFree.password));
    } finally {
      await faultFree.close();
    }
  });
});
