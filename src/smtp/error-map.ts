import { NeedsNewTokensError, TransportError, VendorError } from '../upstream/errors';

/**
 * Vendor failures of /v3.0/send as SMTP answers. Temporary ones are 4xx so clients and MTAs
 * retry; permanent ones 5xx with the vendor's code in the text. One table, every documented
 * code of spec 7.1 (SPAM_DETECTED is built separately because it carries the quarantine id).
 */

export interface SmtpAnswer {
  code: number;
  enhanced: string;
  text: string;
}

const byCode: Record<string, SmtpAnswer> = {
  MISSING_AUTH_HEADER: { code: 454, enhanced: '4.7.0', text: 'The bridge has no send key configured (vendor.apiKey); the operator must fix the configuration' },
  INVALID_API_KEY: { code: 454, enhanced: '4.7.0', text: 'The vendor refused the send key (invalid or revoked); the operator must set a new vendor.apiKey' },
  ACCOUNT_BLOCKED: { code: 554, enhanced: '5.7.1', text: 'The vendor account is blocked' },
  NO_CREDITS_LEFT: { code: 452, enhanced: '4.3.1', text: 'The vendor account has no email credits left; retry after credits are added' },
  USER_NOT_FOUND: { code: 554, enhanced: '5.7.1', text: 'The vendor does not know the user behind the send key' },
  MISSING_USER_PRIVILEGES: { code: 554, enhanced: '5.7.1', text: 'The send key lacks the privilege to send' },
  EMAIL_CREDITS_NOT_FOUND: { code: 451, enhanced: '4.3.0', text: 'The vendor could not check the email credits; try again later' },
  CREDENTIAL_TEMPORARILY_BLOCKED: { code: 450, enhanced: '4.7.1', text: 'The vendor temporarily blocked the send key for policy violations; try again later' },
  IP_TEMPORARILY_BLOCKED: { code: 450, enhanced: '4.7.1', text: 'The vendor temporarily blocked this IP for policy violations; try again later' },
  RATE_LIMITED: { code: 451, enhanced: '4.7.0', text: 'The vendor is rate limiting sends; try again shortly' },
  INTERNAL_SERVER_ERROR: { code: 451, enhanced: '4.3.0', text: 'The vendor had an internal error; try again' },
  VALIDATION_ERROR: { code: 550, enhanced: '5.6.0', text: 'The vendor rejected the message as invalid' },
};

export function answerFor(err: unknown): SmtpAnswer {
  if (err instanceof VendorError) {
    const known = byCode[err.code];
    if (known) return { ...known, text: `${known.text} (${err.code})` };
    return err.transient
      ? { code: 451, enhanced: '4.3.0', text: `The vendor failed temporarily (${err.code}); try again` }
      : { code: 550, enhanced: '5.0.0', text: `The vendor refused the message (${err.code}: ${err.message.slice(0, 200)})` };
  }
  if (err instanceof NeedsNewTokensError) return { code: 454, enhanced: '4.7.0', text: 'The account needs new vendor tokens; run "mailbridge doctor"' };
  if (err instanceof TransportError) return { code: 451, enhanced: '4.4.1', text: 'The vendor is unreachable; try again later' };
  return { code: 451, enhanced: '4.3.0', text: 'Internal bridge error; try again later' };
}

/** smtp-server reads `responseCode` off the error it is given. */
export function smtpError(answer: SmtpAnswer): Error & { responseCode: number } {
  return Object.assign(new Error(`${answer.enhanced} ${answer.text}`), { responseCode: answer.code });
}
