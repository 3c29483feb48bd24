import type { AccountId } from '../model/account-id';
import type { QuarantineRecord, QuarantineStatus } from '../model/quarantine-record';
import type { QuarantineLog } from '../store';
import { mailbridgeCommand } from '../command-name';
import { configFlag, shellWord } from '../util/shell-quote';
import type { QuarantineConnector } from './connector';
import type { HeldSubmission, QuarantineAccess } from './quarantine-folder';
import { ReleaseRefused, type ReleaseRefusal, type SubmissionHeld } from './submission';

/**
 * The submissions the vendor's spam filter held, one record per recipient copy, in one place:
 * SMTP records each hold here, the Quarantine mailbox (quarantine-folder.ts) shows and
 * releases them, and so do `mailbridge quarantine list` and `release`. The records are kept in
 * the state's quarantine log, so they outlive the SMTP session; releases go to the vendor
 * through its quarantine connector.
 */

/** Spec sections 1 and 3: a held copy is releasable for 3 hours. */
export const quarantineLifetimeMs = 3 * 60 * 60 * 1000;

export interface QuarantineOptions {
  log: QuarantineLog;
  vendor: QuarantineConnector;
  /** Epoch milliseconds; injected by tests. */
  now?: () => number;
  /** Each copy held with an id, with its bytes as submitted: what the account's Quarantine mailbox shows. */
  onHeld?(account: AccountId, held: HeldSubmission): void;
}

/** A recipient's copy as it was submitted. */
export interface SubmittedCopy {
  recipient: string;
  subject: string;
  messageId: string;
  raw: Buffer;
}

/** A hold as the submitter is told of it: releasable until `expiresAt` when it has an id. */
export interface Hold extends SubmissionHeld {
  expiresAt: Date;
}

/**
 * The command that releases a held copy, as the user types it (this installation's command,
 * see command-name.ts); with the config file the bridge runs with, when it has one.
 */
export const releaseCommand = (quarantineId: string, configFile: string | null = null) =>
  `${shellWord(mailbridgeCommand())} quarantine release ${quarantineId}${configFlag(configFile)}`;

/** Each refusal of a release, said as what it means and what to do. */
const refusalTexts: Readonly<Record<Exclude<ReleaseRefusal, 'refused'>, string>> = {
  expired:
    'expired: the vendor keeps held emails for 3 hours only and this one is gone; ' +
    'send the email again (after changing what tripped the spam filter)',
  'limit-reached':
    'limit reached: the vendor allows 10 releases per 3 hours and has put the account under review; ' +
    'wait, or contact the vendor',
  forbidden: "not yours: the record belongs to another vendor account than the bridge's send key (vendor.apiKey)",
  'not-found': 'not found: the id is unknown to the vendor or the email was already released',
  corrupt: 'the vendor cannot read the held copy (corrupt payload); send the email again',
  'missing-id': 'no quarantine id was given; pass the id from the SMTP rejection or "mailbridge quarantine list"',
  unreachable: 'the vendor did not answer; try again',
};

/** A held record the vendor no longer keeps is over: expired, or (unknown to it) released. */
const endsAs: Partial<Record<ReleaseRefusal, QuarantineStatus>> = { expired: 'expired', 'not-found': 'released' };

function refusalText(err: ReleaseRefused, local: QuarantineRecord | null): string {
  if (err.reason === 'not-found' && local?.status === 'released') {
    const id = local.detail ? ` (email id ${local.detail})` : '';
    return `already released: this bridge released it before${id}; nothing more to do`;
  }
  if (err.reason === 'refused')
    return `the vendor refused (${err.vendorCode}: ${(err.vendorWords ?? '').slice(0, 160)})`;
  return refusalTexts[err.reason];
}

export class Quarantine implements QuarantineAccess {
  private readonly log: QuarantineLog;
  private readonly vendor: QuarantineConnector;
  private readonly clock: () => number;
  private readonly onHeld: QuarantineOptions['onHeld'];

  constructor(opts: QuarantineOptions) {
    this.log = opts.log;
    this.vendor = opts.vendor;
    this.clock = opts.now ?? Date.now;
    this.onHeld = opts.onHeld;
  }

  now(): number {
    return this.clock();
  }

  /** SMTP: a copy the spam filter stopped. Recorded (with its bytes, for the Quarantine mailbox) when it can be released. */
  hold(account: AccountId, copy: SubmittedCopy, held: SubmissionHeld): Hold {
    const heldAt = new Date(this.clock());
    const expiresAt = new Date(heldAt.getTime() + quarantineLifetimeMs);
    if (held.quarantineId) {
      const { quarantineId } = held;
      const { recipient, subject, messageId, raw } = copy;
      this.log.record({ quarantineId, account, recipient, subject, messageId, heldAt, expiresAt });
      this.onHeld?.(account, { quarantineId, recipient, expiresAt, raw });
    }
    return { ...held, expiresAt };
  }

  get(quarantineId: string): QuarantineRecord | null {
    return this.log.get(quarantineId);
  }

  /** Newest first. */
  list(): QuarantineRecord[] {
    return this.log.list();
  }

  records(account: string): QuarantineRecord[] {
    return this.list().filter((r) => r.account === account);
  }

  /** Records by state; held records past their expiry count as expired. */
  countByState(): Record<QuarantineStatus, number> {
    return this.log.countByState(new Date(this.clock()));
  }

  /** Asks the vendor to deliver a held copy, notes the outcome, and explains it. */
  async release(quarantineId: string): Promise<{ ok: boolean; text: string }> {
    const local = this.log.get(quarantineId);
    try {
      const emailId = await this.vendor.release(quarantineId);
      this.log.markReleased(quarantineId, emailId);
      const to = local ? ` to ${local.recipient}` : '';
      return {
        ok: true,
        text:
          `Released ${quarantineId}: the vendor sanitizes its subject and body and delivers it${to}` +
          `${emailId ? ` (email id ${emailId})` : ''}.`,
      };
    } catch (err) {
      if (!(err instanceof ReleaseRefused)) throw err;
      // no answer says nothing about the record
      if (err.vendorCode) this.log.markRefused(quarantineId, endsAs[err.reason] ?? 'held', err.vendorCode);
      return { ok: false, text: `Could not release ${quarantineId}: ${refusalText(err, local)}` };
    }
  }
}

const stamp = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** Held records past their 3 hours are shown as expired even before a release attempt says so. */
function stateOf(r: QuarantineRecord, now: Date): string {
  if (r.status === 'held' && r.expiresAt <= now) return 'expired';
  if (r.status === 'released') return `released${r.detail ? ` as ${r.detail}` : ''}`;
  return r.status === 'held' && r.detail ? `held (last release refused: ${r.detail})` : r.status;
}

/** `mailbridge quarantine list`: one line per held recipient copy, newest first. */
export function listQuarantine(
  records: Pick<QuarantineLog, 'list'>,
  now = new Date(),
  configFile: string | null = null,
): string[] {
  const list = records.list();
  if (!list.length) return ['No submissions are held in quarantine.'];
  return list.map((r) => {
    const releasable =
      r.status === 'held' && r.expiresAt > now
        ? `, release until ${stamp(r.expiresAt)}: ${releaseCommand(r.quarantineId, configFile)}`
        : '';
    return (
      `${r.quarantineId}  ${stateOf(r, now)}  held ${stamp(r.heldAt)}  ` +
      `from ${r.account} to ${r.recipient}  "${r.subject}"${releasable}`
    );
  });
}
