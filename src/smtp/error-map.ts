import { FencedError, StoreUnavailableError } from '../store/store-errors';
import { redactSecrets } from '../log';
import { type Hold, releaseCommand } from '../domain/quarantine';
import { SubmissionRefused, type SubmissionRefusal } from '../domain/submission';

/**
 * Refused submissions (domain/submission.ts) as SMTP answers, in one table. Temporary
 * conditions (rate, outage, missing credits, a bridge misconfiguration the operator can fix)
 * are 4xx so the client keeps the message queued and retries; refusals that a retry cannot
 * cure are 5xx. The text ends with the vendor's code, and its own words when the reason does
 * not say it all. A held copy is answered by `spamAnswer`, whose text carries the quarantine id.
 */

export interface SmtpAnswer {
  code: number;
  /** RFC 3463 enhanced status code (smtp-server's own are off, so the text carries it). */
  enhanced: string;
  text: string;
}

const answer = (code: number, enhanced: string, text: string): SmtpAnswer => ({ code, enhanced, text });

const refusalAnswers: Readonly<Record<SubmissionRefusal, SmtpAnswer>> = {
  'send-key-missing': answer(
    451,
    '4.3.5',
    'The bridge has no vendor send key (vendor.apiKey); the operator must configure it',
  ),
  'send-key-refused': answer(
    451,
    '4.3.5',
    'The vendor refused the bridge send key (invalid or revoked); the operator must set a new vendor.apiKey',
  ),
  'account-blocked': answer(554, '5.7.1', 'The vendor account is blocked'),
  'no-credits': answer(
    452,
    '4.3.1',
    'The vendor account has no email credits left; the message stays queued until credits are added',
  ),
  'user-unknown': answer(554, '5.7.1', 'The vendor does not know the user behind the send key'),
  'not-privileged': answer(554, '5.7.1', 'The vendor send key lacks the privilege to send'),
  'account-refused': answer(554, '5.7.1', 'The vendor refused to send for this account'),
  'credits-unchecked': answer(451, '4.3.0', 'The vendor could not check the email credits; try again later'),
  'send-key-blocked': answer(
    451,
    '4.7.1',
    'The vendor temporarily blocked the send key for repeated policy violations; try again later',
  ),
  'ip-blocked': answer(
    451,
    '4.7.1',
    "The vendor temporarily blocked the bridge's IP for repeated policy violations; try again later",
  ),
  rate: answer(451, '4.7.0', 'The vendor is rate limiting sends; try again shortly'),
  'vendor-failure': answer(451, '4.3.0', 'The vendor had an internal error; try again'),
  unavailable: answer(451, '4.3.0', 'The vendor is temporarily unavailable; try again later'),
  // a send that timed out may still have been queued, but losing mail is worse than a duplicate
  unreachable: answer(451, '4.4.1', 'The vendor did not answer; try again later'),
  invalid: answer(554, '5.6.0', 'The vendor rejected the message as invalid'),
  refused: answer(554, '5.0.0', 'The vendor refused the message'),
};

/** SMTP answer for anything a submission threw. */
export function answerFor(err: unknown): SmtpAnswer {
  if (err instanceof SubmissionRefused) {
    const known = refusalAnswers[err.reason];
    if (!err.vendorCode) return known;
    // the vendor's own wording helps only for refusals nobody anticipated (e.g. validation)
    const words = err.vendorWords === null ? '' : `: ${err.vendorWords.slice(0, 160)}`;
    return { ...known, text: `${known.text} (${err.vendorCode}${words})` };
  }
  if (err instanceof StoreUnavailableError)
    return answer(451, '4.3.0', "The bridge's database is unreachable; nothing was sent, try again later");
  if (err instanceof FencedError)
    return answer(451, '4.3.2', 'This mailbox is moving to another bridge node; nothing was sent, try again');
  return answer(451, '4.3.0', 'Internal bridge error; try again later');
}

const utcMinute = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** What a held (or unstorable) submission is told, per recipient copy. */
export function describeHold(hold: Hold, configFile: string | null = null): string {
  const detection = hold.detectionId ? `, detection ${hold.detectionId}` : '';
  if (!hold.quarantineId)
    return (
      `flagged by the vendor's spam filter and NOT kept in quarantine (nothing to release${detection}); ` +
      'change the content and send again'
    );
  return (
    `held in the vendor's spam quarantine as quarantine_id ${hold.quarantineId}${detection}, ` +
    `releasable for ${hold.expiresIn ?? '3 hours'} (until ${utcMinute(hold.expiresAt)}); ` +
    `to deliver it anyway run: ${releaseCommand(hold.quarantineId, configFile)}`
  );
}

/** 550 5.7.1 for a submission the spam filter stopped; one entry per recipient copy. */
export function spamAnswer(holds: Array<{ to: string; hold: Hold }>, configFile: string | null = null): SmtpAnswer {
  const describe = (hold: Hold) => describeHold(hold, configFile);
  if (holds.length === 1) return answer(550, '5.7.1', `Not sent: ${describe(holds[0].hold)}`);
  return answer(550, '5.7.1', `Not sent: ${holds.map((h) => `copy to ${h.to} ${describe(h.hold)}`).join('; ')}`);
}

/** smtp-server reads `responseCode` off the error a handler returns. */
export function smtpError(a: SmtpAnswer): Error & { responseCode: number } {
  return Object.assign(new Error(redactSecrets(`${a.enhanced} ${a.text}`)), { responseCode: a.code });
}
