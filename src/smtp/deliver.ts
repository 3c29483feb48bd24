import type { Logger } from '../log';
import type { AccountId } from '../model/account-id';
import type { HeldSubmission } from '../domain/quarantine-folder';
import type { QuarantineLog } from '../store';
import { quarantineLifetimeMs } from '../store/quarantine';
import type { Config } from '../config';
import type { MailboxSend, VendorApi } from '../upstream/api';
import { VendorError } from '../upstream/errors';
import type { SendRequest } from '../upstream/types';
import {
  answerFor,
  describeHold,
  smtpError,
  spamAnswer,
  spamHoldOf,
  type SmtpAnswer,
  type SpamHold,
} from './error-map';
import type { Submission } from './payload';

/**
 * One submission, one SMTP answer: one send command for all recipients when configured (and
 * the message can be expressed as one), otherwise one /v3.0/send call per recipient. 250 only when every
 * call returned an email id. The first recipient goes alone: account-level refusals (key,
 * credits, rate) then fail the whole submission before anyone got it, and the client's retry
 * of a 4xx cannot duplicate anything. The rest go together, paced by the vendor client's
 * limiter. A spam hold does not stop the rest, so every recipient's copy has its own
 * quarantine_id and releasing them all delivers to everyone.
 */

export type SubmissionRecipients = Config['submission']['recipients'];

/** How a submission ended, for metrics: 4xx answers are deferred, other 5xx refused. */
export type SubmissionOutcome = 'sent' | 'held' | 'partial' | 'deferred' | 'refused';

/** The outcome a failed submission's error carries, or the one its SMTP code implies. */
export function failedOutcome(err: {
  responseCode?: number;
  submissionOutcome?: SubmissionOutcome;
}): SubmissionOutcome {
  return err.submissionOutcome ?? ((err.responseCode ?? 451) >= 500 ? 'refused' : 'deferred');
}

const failing = (answer: SmtpAnswer, submissionOutcome: SubmissionOutcome) =>
  Object.assign(smtpError(answer), { submissionOutcome });

export interface Submitted {
  mailbox: AccountId;
  messageId: string;
  /** Email ids the vendor returned, one per recipient that got the message. */
  vendorIds: string[];
}

export interface DeliverDeps {
  vendor: VendorApi;
  quarantine: QuarantineLog;
  logger: Logger;
  onSubmitted?(submitted: Submitted): void;
  /** Each recipient copy the vendor's spam filter held, with the bytes as submitted (the Quarantine mailbox). */
  onHeld?(mailbox: AccountId, held: HeldSubmission): void;
  /** The config file the bridge runs with, named in the release commands it prints. */
  configFile?: string | null;
}

type Outcome = { to: string; sent: string } | { to: string; held: SpamHold } | { to: string; failed: SmtpAnswer };

async function sendOne(deps: DeliverDeps, mailbox: AccountId, sub: Submission, payload: SendRequest): Promise<Outcome> {
  try {
    return { to: payload.to, sent: (await deps.vendor.send(payload)).id };
  } catch (err) {
    const code = err instanceof VendorError ? err.code : (err as Error).name;
    if (err instanceof VendorError && err.code === 'SPAM_DETECTED') {
      const heldAt = new Date();
      const held = spamHoldOf(err, heldAt, quarantineLifetimeMs);
      if (held.quarantineId) {
        deps.quarantine.record({
          quarantineId: held.quarantineId,
          account: mailbox,
          recipient: payload.to,
          subject: sub.subject,
          messageId: sub.messageId,
          heldAt,
          expiresAt: held.expiresAt,
        });
        deps.onHeld?.(mailbox, {
          quarantineId: held.quarantineId,
          recipient: payload.to,
          expiresAt: held.expiresAt,
          raw: sub.raw,
        });
      }
      deps.logger.warn(
        { mailbox, recipient: payload.to, code, quarantineId: held.quarantineId, detectionId: held.detectionId },
        'submission held by the vendor spam filter',
      );
      return { to: payload.to, held };
    }
    const failed = answerFor(err);
    deps.logger.warn({ mailbox, recipient: payload.to, code, smtp: failed.code }, 'send refused');
    return { to: payload.to, failed };
  }
}

/** One send command for every recipient (submission.recipients "command"). */
async function deliverByCommand(deps: DeliverDeps, mailbox: AccountId, sub: Submission, message: MailboxSend) {
  const recipients = message.to.length + message.cc.length + message.bcc.length;
  try {
    const { messageUid } = await deps.vendor.mailbox(mailbox).sendMessage(message);
    deps.onSubmitted?.({ mailbox, messageId: sub.messageId, vendorIds: [messageUid] });
    deps.logger.info({ mailbox, recipients }, 'submission sent by the send command');
    return `Sent to ${recipients} recipient(s) in one send command, vendor message uid ${messageUid}`;
  } catch (err) {
    const failed = answerFor(err);
    const code = err instanceof VendorError ? err.code : (err as Error).name;
    deps.logger.warn({ mailbox, code, smtp: failed.code }, 'send command refused');
    throw smtpError(failed);
  }
}

/** Resolves with the 250 text, rejects with an smtp-server error carrying the answer. */
export async function deliver(
  deps: DeliverDeps,
  mailbox: AccountId,
  sub: Submission,
  recipients: SubmissionRecipients = 'headers',
): Promise<string> {
  if (recipients === 'command' && sub.message) return deliverByCommand(deps, mailbox, sub, sub.message);
  const [first, ...rest] = sub.payloads;
  const firstOutcome = await sendOne(deps, mailbox, sub, first);
  if ('failed' in firstOutcome) throw smtpError(firstOutcome.failed);
  const outcomes = [firstOutcome, ...(await Promise.all(rest.map((p) => sendOne(deps, mailbox, sub, p))))];

  const sent = outcomes.flatMap((o) => ('sent' in o ? [{ to: o.to, id: o.sent }] : []));
  if (sent.length) deps.onSubmitted?.({ mailbox, messageId: sub.messageId, vendorIds: sent.map((s) => s.id) });
  if (sent.length === outcomes.length) {
    deps.logger.info({ mailbox, recipients: sent.length }, 'submission sent');
    return `Sent to ${sent.length} recipient(s), vendor email id(s) ${sent.map((s) => s.id).join(' ')}`;
  }
  const holds = outcomes.flatMap((o) => ('held' in o ? [{ to: o.to, hold: o.held }] : []));
  if (holds.length === outcomes.length) throw failing(spamAnswer(holds, deps.configFile), 'held');
  throw failing(partialAnswer(outcomes, deps.configFile ?? null), 'partial');
}

/**
 * Some recipients got it, some did not. Permanent, so the client does not resend to those
 * who already have it; the text names each group so the user can resend to the rest.
 */
function partialAnswer(outcomes: Outcome[], configFile: string | null): SmtpAnswer {
  const parts = outcomes.map((o) => {
    if ('sent' in o) return `sent to ${o.to} (id ${o.sent})`;
    if ('held' in o) return `NOT sent to ${o.to}: ${describeHold(o.held, configFile)}`;
    return `NOT sent to ${o.to}: ${o.failed.code} ${o.failed.enhanced} ${o.failed.text}`;
  });
  const anySent = outcomes.some((o) => 'sent' in o);
  const advice = anySent ? 'Do not resend to the recipients it was sent to.' : 'Nothing was sent.';
  const onlySpam = outcomes.every((o) => !('failed' in o));
  return {
    code: 550,
    enhanced: onlySpam ? '5.7.1' : '5.0.0',
    text: `Not delivered to every recipient: ${parts.join('; ')}. ${advice}`,
  };
}
