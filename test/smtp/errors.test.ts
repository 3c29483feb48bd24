import path from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseConfig } from '../../src/config';
import { createLogger } from '../../src/log';
import { listQuarantine } from '../../src/domain/quarantine';
import { answerFor } from '../../src/smtp/error-map';
import { createSmtpServer } from '../../src/smtp/server';
import type { MailboxApi } from '../../src/upstream/api';
import { defaultAssumptions } from '../../src/upstream/assumptions';
import { TransportError, VendorError } from '../../src/upstream/errors';
import { createVendorClient } from '../../src/upstream/vendor-client';
import { vendorConnectors } from '../../src/upstream/vendor-connector';
import { vendorSubmission } from '../../src/upstream/vendor-submission';
import { alice, bob, refusal, selfSigned, startSmtpHarness, type SmtpHarness } from './harness';

/** This checkout's bin: commands printed to users name it, since `mailbridge` is not on PATH here. */
const bin = path.resolve(__dirname, '..', '..', 'bin', 'mailbridge.js');

/** Vendor refusals as SMTP answers, the spam quarantine, and the quarantine commands. */

let h: SmtpHarness;

beforeAll(async () => {
  h = await startSmtpHarness();
});

afterAll(async () => {
  await h?.close();
});

const mail = (subject: string, to: string | string[] = bob) => ({
  from: alice,
  to,
  subject,
  text: `body of ${subject}`,
});
const send = (subject: string, to?: string | string[]) => h.transport().sendMail(mail(subject, to));
const inbox = async (mailbox = bob) => (await h.messages(mailbox)).map((m) => m.subject);
const quarantineIdIn = (text: string) => /quarantine_id (q_\w+)/.exec(text)?.[1];

/** What a submission is answered when the vendor's send route fails with `err`. */
async function answerTo(err: unknown) {
  const failing = vendorSubmission({ mailbox: alice } as MailboxApi, () => Promise.reject(err), defaultAssumptions);
  return answerFor(await failing.submit({ to: bob, subject: 's', html: '<p>x</p>', headers: {} }).catch((e) => e));
}

describe('spam quarantine', () => {
  let held: string;

  test('SPAM_DETECTED is 550 5.7.1 with quarantine_id, its 3 hours, the release command; hold recorded', async () => {
    const submittedBefore = h.submitted.length;
    const r = await refusal(send('You are a lottery winner'));
    expect(r.responseCode).toBe(550);
    held = quarantineIdIn(r.response)!;
    expect(held).toBeDefined();
    expect(r.response).toMatch(
      new RegExp(
        String.raw`^550 5\.7\.1 Not sent: held in the vendor's spam quarantine as quarantine_id q_\w+, ` +
          String.raw`detection det_\w+, releasable for 3 hours \(until \d{4}-\d\d-\d\d \d\d:\d\d UTC\)`,
      ),
    );
    expect(r.response).toContain(`to deliver it anyway run: ${bin} quarantine release ${held}`);
    expect(h.submitted.length).toBe(submittedBefore);
    expect(await inbox()).not.toContain('You are a lottery winner');
    expect(h.quarantine.get(held)).toMatchObject({
      account: alice,
      recipient: bob,
      subject: 'You are a lottery winner',
      status: 'held',
    });
    const [line] = listQuarantine(h.quarantine).filter((l) => l.startsWith(held));
    expect(line).toMatch(
      new RegExp(
        `^${held}  held  held .* UTC  from ${alice} to ${bob}  "You are a lottery winner", ` +
          `release until .* UTC: \\S+ quarantine release ${held}$`,
      ),
    );
    expect(line).toContain(`: ${bin} quarantine release`);
  });

  test('release delivers it; a second release is explained as already released', async () => {
    const first = await h.quarantine.release(held);
    expect(first.ok).toBe(true);
    expect(first.text).toMatch(new RegExp(`^Released ${held}: .* to ${bob} \\(email id em_\\w+\\)\\.$`));
    expect(await inbox()).toContain('You are a lottery winner');
    expect(h.quarantine.get(held)?.status).toBe('released');
    const again = await h.quarantine.release(held);
    expect(again).toEqual({
      ok: false,
      text: expect.stringMatching(
        new RegExp(
          `^Could not release ${held}: already released: this bridge released it before \\(email id em_\\w+\\)`,
        ),
      ),
    });
    expect(h.quarantine.get(held)?.status).toBe('released');
    expect(listQuarantine(h.quarantine).find((l) => l.startsWith(held))).toMatch(/ {2}released as em_\w+ {2}/);
  });

  test('a flagged message the vendor could not store: 550 5.7.1 without an id, nothing recorded', async () => {
    const before = h.quarantine.list().length;
    const r = await refusal(send('UNSTORABLE lottery winner'));
    expect(r.responseCode).toBe(550);
    expect(r.response).toMatch(
      new RegExp(
        String.raw`^550 5\.7\.1 Not sent: flagged by the vendor's spam filter and NOT kept in quarantine ` +
          String.raw`\(nothing to release, detection det_\w+\)`,
      ),
    );
    expect(r.response).not.toContain('quarantine_id');
    expect(h.quarantine.list().length).toBe(before);
  });

  test('every recipient copy is held with its own id, all named in the answer', async () => {
    const r = await refusal(send('viagra for two', [bob, 'carol@elsewhere.test']));
    expect(r.response).toMatch(
      new RegExp(
        String.raw`^550 5\.7\.1 Not sent: copy to bob@sandbox\.test held .* quarantine_id q_\w+.*; ` +
          String.raw`copy to carol@elsewhere\.test held .* quarantine_id q_\w+`,
      ),
    );
    const ids = [...r.response.matchAll(/release (q_\w+)/g)].map((m) => m[1]);
    expect(ids).toHaveLength(2);
    expect(ids.map((id) => h.quarantine.get(id)?.recipient).sort()).toEqual([bob, 'carol@elsewhere.test']);
  });

  test('not yours: a record of another vendor account', async () => {
    const res = await fetch(`${h.sandbox.urls.mail}/v3.0/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.sandbox.otherApiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ to: bob, from: 'other@sandbox.test', subject: 'viagra', body: '<p>x</p>' }),
    });
    const foreign = ((await res.json()) as { quarantine_id: string }).quarantine_id;
    const r = await h.quarantine.release(foreign);
    expect(r).toEqual({
      ok: false,
      text:
        `Could not release ${foreign}: not yours: ` +
        "the record belongs to another vendor account than the bridge's send key (vendor.apiKey)",
    });
  });

  test('corrupt payload and an unknown id are explained', async () => {
    const corrupt = quarantineIdIn((await refusal(send('viagra CORRUPT_PAYLOAD'))).response)!;
    expect((await h.quarantine.release(corrupt)).text).toContain(
      'cannot read the held copy (corrupt payload); send the email again',
    );
    expect(h.quarantine.get(corrupt)).toMatchObject({ status: 'held', detail: 'QUARANTINE_CORRUPT' });
    expect((await h.quarantine.release('q_nope')).text).toBe(
      'Could not release q_nope: not found: the id is unknown to the vendor or the email was already released',
    );
  });

  test('expired: after 3 hours the release says to resend, and the record is marked expired', async () => {
    const id = quarantineIdIn((await refusal(send('lottery winner, late'))).response)!;
    h.sandbox.advanceClock(3 * 3600_000 + 60_000);
    const r = await h.quarantine.release(id);
    expect(r.text).toBe(
      `Could not release ${id}: expired: the vendor keeps held emails for 3 hours only and this one is gone; ` +
        'send the email again (after changing what tripped the spam filter)',
    );
    expect(h.quarantine.get(id)?.status).toBe('expired');
    // the local list also knows a record past its 3 hours is expired, without asking the vendor
    const later = new Date(Date.now() + 4 * 3600_000);
    expect(listQuarantine(h.quarantine, later).every((l) => !l.includes('  held  '))).toBe(true);
  });

  test('limit reached: the 11th release within 3 hours', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 11; i++) {
      const err = await h.vendor
        .send({ to: bob, from: alice, subject: `viagra ${i}`, body: '<p>x</p>' })
        .catch((e: VendorError) => e);
      ids.push(String((err as VendorError).details.quarantine_id));
    }
    for (const id of ids.slice(0, 10)) expect((await h.quarantine.release(id)).ok).toBe(true);
    expect((await h.quarantine.release(ids[10])).text).toBe(
      `Could not release ${ids[10]}: limit reached: the vendor allows 10 releases per 3 hours ` +
        'and has put the account under review; wait, or contact the vendor',
    );
  });
});

describe('vendor errors', () => {
  // What each refusal of spec 7.1 means for the mail client, from the spec's "Meaning" column: a
  // condition that passes or that the operator can fix keeps the message queued (4xx, the client
  // retries); one a retry cannot cure bounces (5xx). And what the answer must tell a person.
  const expected: Array<[code: string, outcome: 'retry' | 'bounce', tells: RegExp]> = [
    ['INVALID_API_KEY', 'retry', /vendor\.apiKey/],
    ['ACCOUNT_BLOCKED', 'bounce', /blocked/],
    ['NO_CREDITS_LEFT', 'retry', /no email credits/],
    ['USER_NOT_FOUND', 'bounce', /user/],
    ['MISSING_USER_PRIVILEGES', 'bounce', /privilege/],
    ['EMAIL_CREDITS_NOT_FOUND', 'retry', /credits.*try again/],
    ['CREDENTIAL_TEMPORARILY_BLOCKED', 'retry', /temporarily blocked.*try again/],
    ['IP_TEMPORARILY_BLOCKED', 'retry', /temporarily blocked.*IP.*try again/],
    ['INTERNAL_SERVER_ERROR', 'retry', /try again/],
  ];

  test.each(expected)(
    '%s: the client is told to %s, nothing is queued, the retry goes through',
    async (code, outcome, tells) => {
      const before = h.submitted.length;
      await h.forceAccountError(code, 1);
      const r = await refusal(send(`forced ${code}`));
      const replyClass = outcome === 'retry' ? '4' : '5';
      expect(String(r.responseCode)[0]).toBe(replyClass);
      // RFC 3463: the enhanced status code's class is the reply's class
      const [, reply, enhancedClass, text] = /^(\d{3}) ([245])\.\d{1,3}\.\d{1,3} (.*)$/.exec(r.response) ?? [];
      expect(Number(reply)).toBe(r.responseCode);
      expect(enhancedClass).toBe(replyClass);
      expect(text).toMatch(tells);
      expect(text).toMatch(new RegExp(`\\(${code}\\)$`));
      expect(h.submitted.length).toBe(before);
      await send(`forced ${code}`);
      expect(h.submitted.length).toBe(before + 1);
    },
  );

  test('a failing first recipient stops the submission before anyone gets it', async () => {
    const before = (await inbox()).length;
    await h.forceAccountError('INTERNAL_SERVER_ERROR', 1);
    const r = await refusal(send('two, first fails', [bob, 'carol@elsewhere.test']));
    expect(r.responseCode).toBe(451);
    expect((await inbox()).length).toBe(before);
  });

  test('a partial multi-recipient failure is a permanent error naming both groups', async () => {
    const r = await refusal(send('partial', [bob, 'carol@nodot']));
    expect(r.responseCode).toBe(550);
    expect(r.response).toMatch(
      new RegExp(
        String.raw`^550 5\.0\.0 Not delivered to every recipient: sent to bob@sandbox\.test \(id em_\w+\); ` +
          String.raw`NOT sent to carol@nodot: 554 5\.6\.0 The vendor rejected the message as invalid ` +
          String.raw`\(VALIDATION_ERROR: .*\)\. Do not resend to the recipients it was sent to\.$`,
      ),
    );
    expect(await inbox()).toContain('partial');
    expect(h.submitted.at(-1)?.vendorIds).toHaveLength(1);
  });

  test('a vendor validation refusal of the only recipient is 554 5.6.0', async () => {
    const r = await refusal(send('invalid', 'carol@nodot'));
    expect(r.response).toMatch(/^554 5\.6\.0 The vendor rejected the message as invalid \(VALIDATION_ERROR: /);
  });

  test('no send key configured (MISSING_AUTH_HEADER) and an unreachable vendor are temporary', async () => {
    for (const [vendor, pattern] of [
      [{ apiKey: undefined }, /^451 4\.3\.5 The bridge has no vendor send key/],
      [{ mailUrl: 'http://127.0.0.1:9' }, /^451 4\.4\.1 The vendor did not answer/],
    ] as const) {
      const { configFile: _file, ...base } = h.config;
      const config = parseConfig({
        ...base,
        vendor: { ...h.config.vendor, ...vendor },
        listen: { host: '127.0.0.1', imapPort: 0, smtpPort: 0 },
      });
      const client = createVendorClient(config, h.secrets, createLogger('silent'));
      const smtp = createSmtpServer({
        config,
        connector: vendorConnectors(client, config, createLogger('silent')),
        secrets: h.secrets,
        quarantine: h.quarantine,
        committed: () => Promise.resolve(),
        logger: createLogger('silent'),
        tls: await selfSigned(),
      });
      const { port } = await smtp.listen();
      const t = nodemailer.createTransport({
        host: '127.0.0.1',
        port,
        requireTLS: true,
        tls: { rejectUnauthorized: false },
        auth: { user: alice, pass: h.password },
      });
      const r = await refusal(t.sendMail(mail('misconfigured')));
      expect(r.response).toMatch(pattern);
      t.close();
      await smtp.close();
      await client.close();
    }
  });

  test('codes the sandbox cannot produce on send: passing conditions stay queued, refusals bounce', async () => {
    const cases: Array<[unknown, 4 | 5]> = [
      [new VendorError('RATE_LIMITED', 'slow down', 429), 4],
      [new VendorError('AUTH_UNAVAILABLE', 'later', 503), 4],
      [new VendorError('SOMETHING_NEW', 'no', 400), 5],
      [new VendorError('SOMETHING_NEW', 'later', 502), 4],
      [new TransportError('reset'), 4],
    ];
    for (const [err, replyClass] of cases) {
      const a = await answerTo(err);
      expect(Math.floor(a.code / 100)).toBe(replyClass);
      expect(Number(a.enhanced[0])).toBe(replyClass);
    }
    // an unforeseen refusal carries the vendor's own words, so a person can act on it
    expect((await answerTo(new VendorError('SOMETHING_NEW', 'subject too long', 400))).text).toContain(
      'subject too long',
    );
  });
});
