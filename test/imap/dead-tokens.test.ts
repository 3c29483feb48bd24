import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { callDaemon } from '../../src/ops/control-client';
import type { StatusReport } from '../../src/ops/status';
import { SecretStore } from '../../src/store/secrets';
import { mailbox, startHarness, type Harness } from '../support/bridge-harness';
import { rawSession } from '../support/raw-session';

/**
 * Dead credentials are a state, not a retry loop: once the vendor refused the account's tokens
 * (the user generated a new pair in webmail), clients keep reading what is synced, anything that
 * needs the vendor is refused with the fix, and no command costs a vendor request, however
 * many clients keep reconnecting. Storing a new pair (`account add`) brings it back, no restart.
 */

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ sandbox: { messages: 10 } });
  const s = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  expect(await s.run('SELECT INBOX')).toMatch(/^t\d+ OK/m);
  s.close();
});

afterAll(async () => {
  await h?.close();
});

const ops = (route: string) => fetch(`http://127.0.0.1:${h.bridge.ports.ops}${route}`);
const needsNew = async () =>
  Number(/^mailbridge_token_needs_new\{mailbox="[^"]+"\} (\d+)$/m.exec(await (await ops('/metrics')).text())?.[1]);

describe('revoked tokens', () => {
  test('reads go on locally, vendor commands name `account add` without a request each, until a pair is stored', async () => {
    h.sandbox.revokeTokens(mailbox);
    const first = await rawSession(h.bridge.ports.imap, mailbox, h.password);
    expect(await first.run('SELECT Archive')).toMatch(
      /^t\d+ NO \[UNAVAILABLE\] .*mailbridge account add --mailbox alice@sandbox\.test/m,
    );
    first.close();

    // three clients reconnecting, over and over: no request reaches the vendor
    h.sandbox.resetStats();
    for (let round = 0; round < 3; round++)
      await Promise.all(
        [0, 1, 2].map(async () => {
          const s = await rawSession(h.bridge.ports.imap, mailbox, h.password);
          expect(await s.run('SELECT INBOX')).toMatch(/^t\d+ OK/m);
          expect(await s.run('FETCH 1 BODY.PEEK[]')).toMatch(/^t\d+ OK/m);
          expect(await s.run('SELECT Archive')).toMatch(/^t\d+ NO \[UNAVAILABLE\] .*mailbridge account add/m);
          s.close();
        }),
      );
    await h.bridge.pollers[0].tick();
    expect(h.sandbox.received()).toBe(0);

    const status = await callDaemon<StatusReport>(h.stateDir, 'GET', '/status');
    expect(status.accounts[0].token).toMatchObject({ condition: 'needs_new_tokens' });
    expect(status.accounts[0].token.problem).toMatch(/mailbridge account add --mailbox alice@sandbox\.test/);
    const ready = await ops('/readyz');
    expect(ready.status).toBe(503);
    expect(JSON.stringify(await ready.json())).toMatch(/token: .*mailbridge account add/);
    expect(await needsNew()).toBe(1);

    // `mailbridge account add` in another process stores a new pair
    SecretStore.open(h.stateDir).putTokens(mailbox, h.sandbox.issueTokens(mailbox));
    const after = await rawSession(h.bridge.ports.imap, mailbox, h.password);
    expect(await after.run('SELECT Archive')).toMatch(/^t\d+ OK/m);
    after.close();
    expect(await needsNew()).toBe(0);
    expect((await ops('/readyz')).status).toBe(200);
  });
});
