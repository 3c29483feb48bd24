import type { QuarantineConnector } from '../domain/connector';
import type { MailAddress } from '../domain/message';
import {
  type CopyOutcome,
  type OutgoingAttachment,
  type OutgoingCopy,
  type OutgoingMessage,
  ReleaseRefused,
  type ReleaseRefusal,
  type SubmissionHeld,
  SubmissionRefused,
  type SubmissionRefusal,
} from '../domain/submission';
import type { MailboxApi, MailboxSend, VendorApi } from './api';
import type { Assumptions } from './assumptions';
import { type ErrorKind, TransportError, VendorError } from './errors';
import type { Recipient, SendRequest } from './types';

/**
 * The vendor connector's part for sending and the spam quarantine: domain submissions become
 * /v3.0/send requests (with the optional fields of A16) or the send command (A8), and the
 * vendor's send and release codes (spec 7.1) become the domain's refusals (domain/submission.ts).
 */

/** Every documented refusal of /v3.0/send; the send command's refusals read the same. */
const sendRefusals: Readonly<Record<string, SubmissionRefusal>> = {
  MISSING_AUTH_HEADER: 'send-key-missing',
  INVALID_API_KEY: 'send-key-refused',
  ACCOUNT_BLOCKED: 'account-blocked',
  NO_CREDITS_LEFT: 'no-credits',
  USER_NOT_FOUND: 'user-unknown',
  MISSING_USER_PRIVILEGES: 'not-privileged',
  EMAIL_CREDITS_NOT_FOUND: 'credits-unchecked',
  CREDENTIAL_TEMPORARILY_BLOCKED: 'send-key-blocked',
  IP_TEMPORARILY_BLOCKED: 'ip-blocked',
  RATE_LIMITED: 'rate',
  INTERNAL_SERVER_ERROR: 'vendor-failure',
};

/** Refusals not documented for sending, by their kind; the vendor's words then go along. */
const sendRefusalKinds: Partial<Record<ErrorKind, SubmissionRefusal>> = {
  auth: 'send-key-refused',
  account: 'account-refused',
  rate: 'rate',
  unavailable: 'unavailable',
  internal: 'vendor-failure',
  invalid: 'invalid',
};

const releaseRefusals: Readonly<Record<string, ReleaseRefusal>> = {
  QUARANTINE_EXPIRED: 'expired',
  RELEASE_LIMIT_REACHED: 'limit-reached',
  QUARANTINE_FORBIDDEN: 'forbidden',
  QUARANTINE_NOT_FOUND: 'not-found',
  QUARANTINE_CORRUPT: 'corrupt',
  MISSING_QUARANTINE_ID: 'missing-id',
};

/**
 * The vendor's failure as `Refused`, with the reason its code names (or else its kind, or else
 * `refused`); no answer at all is `unreachable`. Any other failure (the bridge's own) passes as it is.
 */
function refusal<R extends string>(
  Refused: new (
    reason: R | 'unreachable' | 'refused',
    code: string | null,
    words: string | null,
    cause: unknown,
  ) => Error,
  byCode: Readonly<Record<string, R>>,
  byKind: Partial<Record<ErrorKind, R>>,
  err: unknown,
): unknown {
  if (err instanceof TransportError) return new Refused('unreachable', null, null, err);
  if (!(err instanceof VendorError)) return err;
  const documented = byCode[err.code];
  return new Refused(documented ?? byKind[err.kind] ?? 'refused', err.code, documented ? null : err.message, err);
}

const submissionFailure = (err: unknown) =>
  refusal<SubmissionRefusal>(SubmissionRefused, sendRefusals, sendRefusalKinds, err);
const releaseFailure = (err: unknown) => refusal<ReleaseRefusal>(ReleaseRefused, releaseRefusals, {}, err);

/** `answer`, failing with the domain's refusal. */
function translated<T>(answer: Promise<T>, failure: (err: unknown) => unknown): Promise<T> {
  return answer.catch((err: unknown) => {
    throw failure(err);
  });
}

/** SPAM_DETECTED's body: the hold, with the id to release it by when the vendor kept the copy. */
function held(err: VendorError): SubmissionHeld {
  const text = (v: unknown) => (typeof v === 'string' && v ? v : null);
  return {
    quarantineId: text(err.details.quarantine_id),
    detectionId: text(err.details.detectionId),
    expiresIn: text(err.details.expires_in),
  };
}

const recipient = (a: MailAddress): Recipient => (a.name ? { email: a.address, name: a.name } : { email: a.address });

const attachments = (list: OutgoingAttachment[]) =>
  list.map(({ filename, content, contentType, contentId }) => ({
    filename,
    content: content.toString('base64'),
    contentType,
    ...(contentId ? { contentId } : {}),
  }));

function sendRequest(from: string, copy: OutgoingCopy, fields: Assumptions['send']['optionalFields']): SendRequest {
  return {
    from,
    ...(copy.senderName ? { senderName: copy.senderName } : {}),
    subject: copy.subject,
    body: copy.html,
    ...(copy.text ? { [fields.text]: copy.text } : {}),
    ...(copy.replyTo ? { [fields.replyTo]: copy.replyTo } : {}),
    [fields.headers]: copy.headers,
    ...(copy.attachments?.length ? { [fields.attachments]: attachments(copy.attachments) } : {}),
    to: copy.to,
  };
}

function mailboxSend(m: OutgoingMessage): MailboxSend {
  return {
    ...m,
    to: m.to.map(recipient),
    cc: m.cc.map(recipient),
    bcc: m.bcc.map(recipient),
    attachments: m.attachments && attachments(m.attachments),
  };
}

/** The send route of the bridge's key, as the vendor client offers it. */
export type SendRoute = VendorApi['send'];

/** Submission from `api`'s mailbox: each copy through the send route, a whole message through the send command. */
export function vendorSubmission(api: MailboxApi, send: SendRoute, assumptions: Assumptions) {
  const submit = async (copy: OutgoingCopy): Promise<CopyOutcome> => {
    try {
      return { sent: (await send(sendRequest(api.mailbox, copy, assumptions.send.optionalFields))).id };
    } catch (err) {
      if (err instanceof VendorError && err.code === 'SPAM_DETECTED') return { held: held(err) };
      throw submissionFailure(err);
    }
  };
  return {
    submit,
    submitMessage: (message: OutgoingMessage) =>
      translated(
        api.sendMessage(mailboxSend(message)).then((r) => r.messageUid),
        submissionFailure,
      ),
  };
}

/** The spam quarantine behind the bridge's send key. */
export function vendorQuarantine(vendor: Pick<VendorApi, 'releaseQuarantine'>): QuarantineConnector {
  return {
    release: (quarantineId) =>
      translated(
        vendor.releaseQuarantine(quarantineId).then((r) => r.id),
        releaseFailure,
      ),
  };
}
