import nodemailer from 'nodemailer';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { callDaemon } from '../../src/ops/control-client';
import type { ResyncResult } from '../../src/ops/resync';
import { type Harness, mailbox, startHarness } from '../support/bridge-harness';

/**
 * `mailbridge resync` on an account with a Quarantine mailbox (a submission the spam filter
 * held): that mailbox is the quarantine log's, never a vendor folder, so its name never
 * reaches the vendor, every folder reports ok, and /readyz stays ready past staleAfterSeconds.
 */

let clockOffset = 0;
let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    sandbox: { messages: 5 },
    config: { ops: { port: 0, staleAfterSeconds: 60 } },
    bridge: { now: () => Date.now() + clockOffset },
  });
});
afterAll(async () => {
  await h?.close();
});

test('resync with a Quarantine mailbox: every folder ok, nothing asked of the vendor about it, ready after', async () => {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: h.bridge.ports.smtp,
    secure: false,
    tls: { rejectUnauthorized: false },
    auth: { user: mailbox, pass: h.password },
  });
  const refusal = await transport
    .sendMail({ from: mailbox, to: 'bob@sandbox.test', subject: 'lottery winner', text: 'you are a lottery winner' })
    .then(
      () => '',
      (err: Error) => err.message,
    );
  transport.close();
  expect(refusal).toMatch(/quarantine_id q_/);
  const client = await h.client();
  try {
    expect((await client.list()).map((m) => m.path)).toContain('Quarantine');
  } finally {
    await client.logout();
  }

  const result = await callDaemon<ResyncResult>(h.stateDir, 'POST', '/resync', { mailbox });
  expect(result.folders.filter((f) => f.error)).toEqual([]);
  expect(result.folders.find((f) => f.folder === 'Quarantine')).toEqual({
    folder: 'Quarantine',
    messages: 1,
    error: null,
  });
  const only = await callDaemon<ResyncResult>(h.stateDir, 'POST', '/resync', { mailbox, folder: 'Quarantine' });
  expect(only.folders).toEqual([{ folder: 'Quarantine', messages: 1, error: null }]);

  clockOffset += 61_000;
  const ready = await fetch(`http://127.0.0.1:${h.bridge.ports.ops}/readyz`);
  expect(await ready.json()).toEqual({ ready: true, accounts: [{ mailbox, ready: true, problems: [] }] });
  expect(ready.status).toBe(200);
});
