import { describe, expect, test } from 'vitest';
import { parseConfig } from '../../src/config';
import { VendorError } from '../../src/upstream/errors';
import { mailbox, useUpstreamHarness } from './harness';

/** A vendor whose flag command and result field differ from the defaults (A5, A20): sandbox and bridge told alike. */
const overrides = { commands: { flag: { name: 'set_flags' } }, resultFields: { updated: 'changed' } };
const h = useUpstreamHarness({ messages: 50, wireFormat: overrides });

describe('assumptions are overridable from the config, and the sandbox follows them', () => {
  test('overridden names work end to end; the defaults then meet UNKNOWN_COMMAND', async () => {
    await h.fresh();
    const config = parseConfig({
      vendor: h.config.vendor,
      accounts: h.config.accounts,
      stateDir: h.stateDir,
      assumptions: overrides,
    });
    const { client } = h.client(undefined, config);
    const [thread] = (await client.mailbox(mailbox).listThreads({ folder: 'INBOX', limit: 1 })).threads;
    const id = thread.last_message_uid;
    const result = await client.mailbox(mailbox).setFlags([id], { is_starred: true });
    expect(result.done).toEqual([id]);
    expect(h.sandbox.stats(mailbox).commands.set_flags).toBe(1);

    const { client: defaults } = h.client();
    const err = await defaults
      .mailbox(mailbox)
      .setFlags([id], { is_starred: false })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VendorError);
    expect((err as VendorError).kind).toBe('unsupported');
  });
});
