import type { Logger } from '../log';
import type { AccountId } from '../model/account-id';
import type { Config } from '../config';
import type { Connector } from '../domain/connector';
import type { Hold, Quarantine } from '../domain/quarantine';
import { type CopyOutcome, type OutgoingCopy, type OutgoingMessage, SubmissionRefused } from '../domain/submission';
import { answerFor, describeHold, smtpError, spamAnswer, type SmtpAnswer } from './error-map';
import type { Submission } from './payload';

/**
 * One submission, one SMTP answer: one send command for all recipients when configured (and
 * the message can be expressed as one), otherwise one copy per recipient. 250 only when every
 * call returned an email id. The first recipient goes alone: account-level refusals (key,
 * credits, rate) then fail the whole submission before anyone got it, and the client's retry
 * of a 4xx cannot duplicate anything. The rest go together, paced by the vendor connector. A
 * spam hold does not stop the rest, so every recipient's copy has its own quarantine id and
 * releasing them all delivers to everyone.
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
  /** The submitting mailbox's connector. */
  connector: Connector;
  quarantine: Pick<Quarantine, 'hold'>;
  logger: Logger;
  onSubmitted?(submitted: Submitted): void;
  /** The config file the bridge runs with, named in the release commands it prints. */
  configFile?: string | null;
}

type Outcome = { to: string; sent: string } | { to: string; held: Hold } | { to: string; failed: SmtpAnswer };

/** The vendor's code of a refusal, or the name of the bridge's own failure, for the log. */
const failureCode = (err: unknown) =>
  err instanceof SubmissionRefused ? (err.vendorCode ?? err.reason) : (err as Error).name;

async function sendOne(deps: DeliverDeps, mailbox: AccountId, sub: Submission, copy: OutgoingCopy): Promise<Outcome> {
  let outcome: CopyOutcome;
  try {
    outcome = await deps.connector.submit(copy);
  } catch (err) {
    const failed = answerFor(err);
    deps.logger.warn({ mailbox, recipient: copy.to, code: failureCode(err), smtp: failed.code }, 'send refused');
    return { to: copy.to, failed };
  }
  if ('sent' in outcome) return { to: copy.to, sent: outcome.sent };
  const { raw, subject, messageId } = sub;
  const held = deps.quarantine.hold(mailbox, { recipient: copy.to, subject, messageId, raw }, outcome.held);
  deps.logger.warn(
    { mailbox, recipient: copy.to, quarantineId: held.quarantineId, detectionId: held.detectionId },
    'submission held by the vendor spam filter',
  );
  return { to: copy.to, held };
}

/** One send command for every recipient (submission.recipients "command"). */
async function deliverByCommand(deps: DeliverDeps, mailbox: AccountId, sub: Submission, message: OutgoingMessage) {
  const recipients = message.to.length + message.cc.length + message.bcc.length;
  try {
    const messageUid = await deps.connector.submitMessage(message);
    deps.onSubmitted?.({ mailbox, messageId: sub.messageId, vendorIds: [messageUid] });
    deps.logger.info({ mailbox, recipients }, 'submission sent by the send command');
    return `Sent to ${recipients} recipient(s) in one send command, vendor message uid ${messageUid}`;
  } catch (err) {
    const failed = answerFor(err);
    deps.logger.warn({ mailbox, code: failureCode(err), smtp: failed.code }, 'send command refused');
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
  const [first, ...rest] = sub.copies;
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
