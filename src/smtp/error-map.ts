import { FencedError, StoreUnavailableError } from '../store/store-errors';
import { redactSecrets } from '../log';
import { mailbridgeCommand } from '../command-name';
import { configFlag, shellWord } from '../util/shell-quote';
import { TransportError, VendorError, type ErrorKind } from '../upstream/errors';

/**
 * Vendor failures of /v3.0/send as SMTP answers, in one table. Temporary conditions (rate,
 * outage, missing credits, a bridge misconfiguration the operator can fix) are 4xx so the
 * client keeps the message queued and retries; refusals that a retry cannot cure are 5xx.
 * Every documented send code of spec 7.1 has a row; unknown codes fall back to their kind.
 * SPAM_DETECTED is answered by `spamAnswer` because its text carries the quarantine id.
 */

export interface SmtpAnswer {
  code: number;
  /** RFC 3463 enhanced status code (smtp-server's own are off, so the text carries it). */
  enhanced: string;
  text: string;
}

const answer = (code: number, enhanced: string, text: string): SmtpAnswer => ({ code, enhanced, text });

export const sendErrorAnswers: Readonly<Record<string, SmtpAnswer>> = {
  MISSING_AUTH_HEADER: answer(
    451,
    '4.3.5',
    'The bridge has no vendor send key (vendor.apiKey); the operator must configure it',
  ),
  INVALID_API_KEY: answer(
    451,
    '4.3.5',
    'The vendor refused the bridge send key (invalid or revoked); the operator must set a new vendor.apiKey',
  ),
  ACCOUNT_BLOCKED: answer(554, '5.7.1', 'The vendor account is blocked'),
  NO_CREDITS_LEFT: answer(
    452,
    '4.3.1',
    'The vendor account has no email credits left; the message stays queued until credits are added',
  ),
  USER_NOT_FOUND: answer(554, '5.7.1', 'The vendor does not know the user behind the send key'),
  MISSING_USER_PRIVILEGES: answer(554, '5.7.1', 'The vendor send key lacks the privilege to send'),
  EMAIL_CREDITS_NOT_FOUND: answer(451, '4.3.0', 'The vendor could not check the email credits; try again later'),
  CREDENTIAL_TEMPORARILY_BLOCKED: answer(
    451,
    '4.7.1',
    'The vendor temporarily blocked the send key for repeated policy violations; try again later',
  ),
  IP_TEMPORARILY_BLOCKED: answer(
    451,
    '4.7.1',
    "The vendor temporarily blocked the bridge's IP for repeated policy violations; try again later",
  ),
  RATE_LIMITED: answer(451, '4.7.0', 'The vendor is rate limiting sends; try again shortly'),
  INTERNAL_SERVER_ERROR: answer(451, '4.3.0', 'The vendor had an internal error; try again'),
};

const kindAnswers: Readonly<Partial<Record<ErrorKind, SmtpAnswer>>> = {
  auth: sendErrorAnswers.INVALID_API_KEY,
  account: answer(554, '5.7.1', 'The vendor refused to send for this account'),
  rate: sendErrorAnswers.RATE_LIMITED,
  unavailable: answer(451, '4.3.0', 'The vendor is temporarily unavailable; try again later'),
  internal: sendErrorAnswers.INTERNAL_SERVER_ERROR,
  invalid: answer(554, '5.6.0', 'The vendor rejected the message as invalid'),
};

/** SMTP answer for anything vendor.send threw (except SPAM_DETECTED). */
export function answerFor(err: unknown): SmtpAnswer {
  if (err instanceof VendorError) {
    const known = sendErrorAnswers[err.code] ?? kindAnswers[err.kind];
    // the vendor's own wording helps only for refusals nobody anticipated (e.g. validation)
    const detail = sendErrorAnswers[err.code] ? '' : `: ${err.message.slice(0, 160)}`;
    if (known) return { ...known, text: `${known.text} (${err.code}${detail})` };
    return err.transient
      ? answer(451, '4.3.0', `The vendor failed temporarily (${err.code}); try again`)
      : answer(554, '5.0.0', `The vendor refused the message (${err.code}${detail})`);
  }
  // a send that timed out may still have been queued, but losing mail is worse than a duplicate
  if (err instanceof TransportError) return answer(451, '4.4.1', 'The vendor did not answer; try again later');
  if (err instanceof StoreUnavailableError)
    return answer(451, '4.3.0', "The bridge's database is unreachable; nothing was sent, try again later");
  if (err instanceof FencedError)
    return answer(451, '4.3.2', 'This mailbox is moving to another bridge node; nothing was sent, try again');
  return answer(451, '4.3.0', 'Internal bridge error; try again later');
}

export interface SpamHold {
  quarantineId: string | null;
  detectionId: string | null;
  /** The vendor's expires_in text ("3 hours"). */
  expiresIn: string | null;
  expiresAt: Date;
}

/** Fields of a SPAM_DETECTED error body. */
export function spamHoldOf(err: VendorError, heldAt: Date, lifetimeMs: number): SpamHold {
  const str = (v: unknown) => (typeof v === 'string' && v ? v : null);
  return {
    quarantineId: str(err.details.quarantine_id),
    detectionId: str(err.details.detectionId),
    expiresIn: str(err.details.expires_in),
    expiresAt: new Date(heldAt.getTime() + lifetimeMs),
  };
}

const utcMinute = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * The release command as the user types it (this installation's command, see command-name.ts);
 * with the config file the bridge runs with, when it has one.
 */
export const releaseCommand = (quarantineId: string, configFile: string | null = null) =>
  `${shellWord(mailbridgeCommand())} quarantine release ${quarantineId}${configFlag(configFile)}`;

/** What a held (or unstorable) submission is told, per recipient copy. */
export function describeHold(hold: SpamHold, configFile: string | null = null): string {
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
export function spamAnswer(holds: Array<{ to: string; hold: SpamHold }>, configFile: string | null = null): SmtpAnswer {
  const describe = (hold: SpamHold) => describeHold(hold, configFile);
  if (holds.length === 1) return answer(550, '5.7.1', `Not sent: ${describe(holds[0].hold)}`);
  return answer(550, '5.7.1', `Not sent: ${holds.map((h) => `copy to ${h.to} ${describe(h.hold)}`).join('; ')}`);
}

/** smtp-server reads `responseCode` off the error a handler returns. */
export function smtpError(a: SmtpAnswer): Error & { responseCode: number } {
  return Object.assign(new Error(redactSecrets(`${a.enhanced} ${a.text}`)), { responseCode: a.code });
}
