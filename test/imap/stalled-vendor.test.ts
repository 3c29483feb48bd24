import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox';
import { vendorSettings } from '../../src/sandbox/vendor-settings';
import { mailbox, startHarness, type Harness } from '../support/bridge-harness';
import { rawSession, type RawSession } from '../support/raw-session';

/**
 * A vendor that stops answering (it accepts requests and sits on them): a client waiting for it
 * hears NO [UNAVAILABLE] within the configured timeout, not after every retry's, and every
 * session keeps working from local state meanwhile. The timeout is undici's own timer on a real
 * socket, which no injected clock reaches: these tests wait for it on the real clock (a second).
 */

const timeoutMs = 1_000;
/** How long the vendor sits on each request. */
const stallMs = 20_000;

let sandbox: Sandbox;
let h: Harness;
let reader: RawSession;

beforeAll(async () => {
  sandbox = await startSandbox({ messages: 10 });
  h = await startHarness({ vendor: sandbox, config: { vendor: { ...vendorSettings(sandbox), timeoutMs } } });
  reader = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  expect(await reader.run('SELECT INBOX')).toMatch(/^t\d+ OK/m);
  expect(await reader.run('FETCH 1 BODY.PEEK[]')).toMatch(/^t\d+ OK/m);
  // from here on the vendor holds every request
  sandbox.setLatency(stallMs);
});

afterAll(async () => {
  reader?.close();
  await h?.close();
  await sandbox?.close();
});

describe('a stalled vendor', () => {
  test('a client waiting for it gets NO [UNAVAILABLE] within the configured timeout', async () => {
    const s = await rawSession(h.bridge.ports.imap, mailbox, h.password);
    try {
      const [started, sent] = [performance.now(), sandbox.received()];
      expect(await s.run('SELECT Archive')).toMatch(/^t\d+ NO \[UNAVAILABLE\] Mail vendor unreachable/m);
      // one request that timed out, not repeated; answered long before the vendor would have
      // (bounds a loaded machine cannot break, unlike one on how long the timeout took)
      expect(sandbox.received() - sent).toBe(1);
      expect(performance.now() - started).toBeLessThan(stallMs / 2);
    } finally {
      s.close();
    }
  });

  test('other sessions and IDLE keep working from local state while a client waits', async () => {
    const waiting = await rawSession(h.bridge.ports.imap, mailbox, h.password);
    const stuck = waiting.run('SELECT Trash');
    try {
      expect(await reader.run('FETCH 1:* (FLAGS UID)')).toMatch(/^t\d+ OK/m);
      expect(await reader.run('FETCH 1 BODY.PEEK[]')).toMatch(/^t\d+ OK/m);
      reader.send('idle1 IDLE');
      await reader.waitFor(/^\+ .*\r\n/m);
      reader.send('DONE');
      expect(await reader.waitFor(/^idle1 (OK|NO|BAD).*\r\n/m)).toMatch(/^idle1 OK/m);
      const other = await rawSession(h.bridge.ports.imap, mailbox, h.password);
      expect(await other.run('EXAMINE INBOX')).toMatch(/^t\d+ OK/m);
      other.close();
      expect(await stuck).toMatch(/^t\d+ NO \[UNAVAILABLE\]/m);
    } finally {
      waiting.close();
    }
  });
});
