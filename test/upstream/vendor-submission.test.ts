import { describe, expect, test } from 'vitest';
import { ReleaseRefused, SubmissionRefused } from '../../src/domain/submission';
import type { MailboxApi } from '../../src/upstream/api';
import { defaultAssumptions } from '../../src/upstream/assumptions';
import { NeedsNewTokensError, TransportError, VendorError } from '../../src/upstream/errors';
import type { SendRequest } from '../../src/upstream/types';
import { vendorQuarantine, vendorSubmission } from '../../src/upstream/vendor-submission';

/** The vendor connector's sending and releasing: domain values out, the vendor's codes back in the domain's terms. */

const me = 'me@sandbox.test';
const copy = { to: 'bob@sandbox.test', subject: 'Hi', html: '<p>hi</p>', headers: { 'Message-ID': '<m@x>' } };
const message = { messageId: '<m@x>', to: [], cc: [], bcc: [], subject: 'Hi', html: '<p>hi</p>' };

/** Submission whose send route and send command both fail with `err`. */
function failing(err: unknown) {
  const api = { mailbox: me, sendMessage: () => Promise.reject(err) } as unknown as MailboxApi;
  return vendorSubmission(api, () => Promise.reject(err), defaultAssumptions);
}

async function thrown(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => expect.unreachable('the call succeeded'),
    (e: unknown) => e,
  );
}

describe('a submission', () => {
  test('becomes a send request with the assumed optional fields, from the connector’s mailbox', async () => {
    const sent: SendRequest[] = [];
    const api = { mailbox: me } as MailboxApi;
    const submission = vendorSubmission(
      api,
      async (req) => {
        sent.push(req);
        return { id: 'em_1' };
      },
      defaultAssumptions,
    );
    const attachment = { filename: 'a.txt', content: Buffer.from('abc'), contentType: 'text/plain' };
    const outcome = await submission.submit({ ...copy, text: 'hi', replyTo: 'r@x.test', attachments: [attachment] });
    expect(outcome).toEqual({ sent: 'em_1' });
    expect(sent).toEqual([
      {
        from: me,
        subject: 'Hi',
        body: '<p>hi</p>',
        text: 'hi',
        replyTo: 'r@x.test',
        headers: { 'Message-ID': '<m@x>' },
        attachments: [{ filename: 'a.txt', content: 'YWJj', contentType: 'text/plain' }],
        to: 'bob@sandbox.test',
      },
    ]);
  });

  test('held by the spam filter: the quarantine id, detection and the vendor’s expiry, not a failure', async () => {
    const spam = new VendorError('SPAM_DETECTED', 'spam', 403, {
      quarantine_id: 'q_1',
      detectionId: 'det_1',
      expires_in: '3 hours',
    });
    expect(await failing(spam).submit(copy)).toEqual({
      held: { quarantineId: 'q_1', detectionId: 'det_1', expiresIn: '3 hours' },
    });
    const unstorable = new VendorError('SPAM_DETECTED', 'spam', 403, { quarantine_id: null, detectionId: 'det_2' });
    expect(await failing(unstorable).submit(copy)).toEqual({
      held: { quarantineId: null, detectionId: 'det_2', expiresIn: null },
    });
  });

  test.each([
    ['MISSING_AUTH_HEADER', 401, 'send-key-missing'],
    ['INVALID_API_KEY', 401, 'send-key-refused'],
    ['ACCOUNT_BLOCKED', 403, 'account-blocked'],
    ['NO_CREDITS_LEFT', 402, 'no-credits'],
    ['USER_NOT_FOUND', 404, 'user-unknown'],
    ['MISSING_USER_PRIVILEGES', 403, 'not-privileged'],
    ['EMAIL_CREDITS_NOT_FOUND', 503, 'credits-unchecked'],
    ['CREDENTIAL_TEMPORARILY_BLOCKED', 429, 'send-key-blocked'],
    ['IP_TEMPORARILY_BLOCKED', 429, 'ip-blocked'],
    ['RATE_LIMITED', 429, 'rate'],
    ['INTERNAL_SERVER_ERROR', 500, 'vendor-failure'],
  ])('documented send code %s (HTTP %i) is refused as %s, without the vendor’s words', async (code, status, reason) => {
    const err = new VendorError(code, 'the vendor says why', status);
    // the send route's copy and the send command's whole message alike
    for (const refused of [
      await thrown(failing(err).submit(copy)),
      await thrown(failing(err).submitMessage(message)),
    ]) {
      expect(refused).toBeInstanceOf(SubmissionRefused);
      expect(refused).toMatchObject({ reason, vendorCode: code, vendorWords: null, cause: err });
    }
  });

  test('an undocumented refusal is read by its kind and keeps the vendor’s words', async () => {
    const cases: Array<[VendorError, string]> = [
      [new VendorError('INVALID_TOKEN', 'revoked', 401), 'send-key-refused'],
      [new VendorError('VALIDATION_ERROR', 'to is not an address', 400), 'invalid'],
      [new VendorError('AUTH_UNAVAILABLE', 'later', 503), 'unavailable'],
      [new VendorError('SOMETHING_NEW', 'later', 502), 'vendor-failure'],
      [new VendorError('QUOTA', 'over', 403, {}, 'account'), 'account-refused'],
      [new VendorError('TOKEN_EXPIRED', 'expired', 401), 'refused'],
    ];
    for (const [err, reason] of cases) {
      expect(await thrown(failing(err).submit(copy))).toMatchObject({
        reason,
        vendorCode: err.code,
        vendorWords: err.message,
      });
    }
  });

  test('no answer is unreachable; the bridge’s own failures pass as they are', async () => {
    expect(await thrown(failing(new TransportError('reset')).submit(copy))).toMatchObject({
      reason: 'unreachable',
      vendorCode: null,
    });
    const tokens = new NeedsNewTokensError(me);
    expect(await thrown(failing(tokens).submitMessage(message))).toBe(tokens);
  });
});

describe('a release', () => {
  const releasing = (answer: () => Promise<{ id: string | null; body: Record<string, unknown> }>) =>
    vendorQuarantine({ releaseQuarantine: answer });

  test('answers the delivered email’s id', async () => {
    expect(await releasing(async () => ({ id: 'em_7', body: {} })).release('q_1')).toBe('em_7');
  });

  test.each([
    ['QUARANTINE_EXPIRED', 410, 'expired', null],
    ['RELEASE_LIMIT_REACHED', 429, 'limit-reached', null],
    ['QUARANTINE_FORBIDDEN', 403, 'forbidden', null],
    ['QUARANTINE_NOT_FOUND', 404, 'not-found', null],
    ['QUARANTINE_CORRUPT', 500, 'corrupt', null],
    ['MISSING_QUARANTINE_ID', 400, 'missing-id', null],
    ['SOMETHING_NEW', 400, 'refused', 'SOMETHING_NEW: no'],
  ])('%s (HTTP %i) is refused as %s', async (code, status, reason, vendorWords) => {
    const err = new VendorError(code, 'no', status);
    const refused = await thrown(releasing(() => Promise.reject(err)).release('q_1'));
    expect(refused).toBeInstanceOf(ReleaseRefused);
    expect(refused).toMatchObject({ reason, vendorCode: code, vendorWords });
  });

  test('no answer is unreachable', async () => {
    expect(await thrown(releasing(() => Promise.reject(new TransportError('reset'))).release('q_1'))).toMatchObject({
      reason: 'unreachable',
      vendorCode: null,
    });
  });
});
