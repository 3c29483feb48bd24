import { describe, expect, test } from 'vitest';
import { ConnectorError, OutcomeUnknownError } from '../../src/domain/connector';
import { toImapError } from '../../src/imap/imap-error';
import { createLogger } from '../../src/log';
import type { MailboxApi } from '../../src/upstream/api';
import { defaultAssumptions } from '../../src/upstream/assumptions';
import { NeedsNewTokensError, TransportError, VendorError } from '../../src/upstream/errors';
import { vendorConnector } from '../../src/upstream/vendor-connector';

/** A connector whose every vendor call fails with `err`. */
function failingConnector(err: unknown) {
  const fail = () => Promise.reject(err);
  const api = { mailbox: 'me@sandbox.test', folderList: fail, move: fail, search: fail } as unknown as MailboxApi;
  return vendorConnector(
    api,
    fail,
    defaultAssumptions,
    { authservId: 'sandbox.test', spamFlagThreshold: 5, messagePartsUpTo: 0 },
    createLogger('silent'),
  );
}

async function thrown(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => expect.unreachable('the call succeeded'),
    (e: unknown) => e,
  );
}

describe('the connector speaks failures in the domain’s terms', () => {
  test.each([
    [new VendorError('UNKNOWN_COMMAND', 'no such command', 400, {}, 'unsupported'), 'unsupported', 'CANNOT'],
    [new VendorError('INVALID_ARGS', 'bad folder', 400), 'refused', 'CANNOT'],
    [new VendorError('NOT_FOUND', 'gone', 404, {}, 'not_found'), 'not_found', 'NONEXISTENT'],
    [new VendorError('INVALID_TOKEN', 'revoked', 401), 'credentials', 'UNAVAILABLE'],
    [new VendorError('ACCOUNT_BLOCKED', 'blocked', 403), 'credentials', 'UNAVAILABLE'],
    [new VendorError('RATE_LIMITED', 'slow down', 429), 'rate', 'UNAVAILABLE'],
    [new VendorError('INTERNAL', 'oops', 500), 'unavailable', 'UNAVAILABLE'],
    [new TransportError('socket hang up'), 'unreachable', 'UNAVAILABLE'],
    [new NeedsNewTokensError('me@sandbox.test'), 'tokens', 'UNAVAILABLE'],
  ])('%s becomes %s, answered NO [%s]', async (vendorErr, failure, imapCode) => {
    const err = await thrown(failingConnector(vendorErr).listFolders('sync'));
    expect(err).toBeInstanceOf(ConnectorError);
    expect((err as ConnectorError).failure).toBe(failure);
    expect((err as ConnectorError).cause).toBe(vendorErr);
    expect(toImapError(err).code).toBe(imapCode);
  });

  test('the IMAP text names the vendor code, never a bare internal error', async () => {
    const err = await thrown(failingConnector(new VendorError('RATE_LIMITED', 'slow', 429)).move(['m1'], 'Archive'));
    expect(toImapError(err).message).toMatch(/rate limiting this mailbox \(RATE_LIMITED\)/);
    const tokens = await thrown(failingConnector(new NeedsNewTokensError('me@sandbox.test')).listFolders());
    expect(toImapError(tokens).message).toMatch(/^Vendor tokens are no longer valid: .*mailbridge account add/);
  });

  test('a lost write answer stays an OutcomeUnknownError, so the domain reads back', async () => {
    const lost = new OutcomeUnknownError('move', ['m1'], { done: [], notFound: [] }, new TransportError('reset'));
    expect(await thrown(failingConnector(lost).move(['m1'], 'Archive'))).toBe(lost);
  });

  test('a vendor without search answers null, so the bridge searches locally', async () => {
    const unsupported = new VendorError('UNKNOWN_COMMAND', 'no search', 400, {}, 'unsupported');
    expect(await failingConnector(unsupported).search('hello', null)).toBeNull();
  });
});
