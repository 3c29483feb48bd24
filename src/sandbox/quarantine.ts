import { hash32, hex32 } from './rng';
import type { Account } from './accounts';
import type { Outgoing } from './store';

export const quarantineLifetimeMs = 3 * 3_600_000;
export const releaseLimit = 10;

/** Deterministic spam filter of the sandbox: these words in subject or body trip it. */
export const spamTriggers = /viagra|lottery winner|unstorable/i;
/** Tripped, but the payload "cannot be stored": the all-null SPAM_DETECTED variant. */
export const unstorableTrigger = /unstorable/i;
/** Stored, but releasing it fails with 500 QUARANTINE_CORRUPT. */
export const corruptTrigger = /corrupt_payload/i;

export interface QuarantineRecord {
  id: string;
  accountId: string;
  payload: Outgoing;
  createdAt: number;
  processed: boolean;
  corrupt: boolean;
}

export type ReleaseOutcome =
  | { ok: true; payload: Outgoing }
  | { ok: false; status: number; code: string; error: string };

export class Quarantine {
  readonly records = new Map<string, QuarantineRecord>();
  private counter = 0;

  constructor(
    private readonly seed: number,
    private readonly now: () => number,
  ) {}

  /** Returns the SPAM_DETECTED fields; stores the payload unless it is unstorable. */
  hold(account: Account, payload: Outgoing): { detectionId: string; quarantineId: string | null } {
    const n = ++this.counter;
    const detectionId = `det_${hex32(hash32(this.seed, n, 0xde7))}`;
    const text = `${payload.subject}\n${payload.html}\n${payload.text}`;
    if (unstorableTrigger.test(text)) return { detectionId, quarantineId: null };
    const id = `q_${hex32(hash32(this.seed, n, 0x9a))}${n.toString(36)}`;
    this.records.set(id, {
      id,
      accountId: account.id,
      payload,
      createdAt: this.now(),
      processed: false,
      corrupt: corruptTrigger.test(text),
    });
    return { detectionId, quarantineId: id };
  }

  /** Spec 3 and 7.1: ownership, processed, expiry, corruption, then the 10 per 3 h limit. */
  release(account: Account, id: string): ReleaseOutcome {
    const record = this.records.get(id);
    if (!record || (record.processed && record.accountId === account.id))
      return {
        ok: false,
        status: 404,
        code: 'QUARANTINE_NOT_FOUND',
        error: 'Quarantine record not found or already processed',
      };
    if (record.accountId !== account.id)
      return {
        ok: false,
        status: 403,
        code: 'QUARANTINE_FORBIDDEN',
        error: 'Quarantine record belongs to another account',
      };
    const now = this.now();
    if (now - record.createdAt >= quarantineLifetimeMs)
      return {
        ok: false,
        status: 410,
        code: 'QUARANTINE_EXPIRED',
        error: 'Quarantine record expired; resend the email',
      };
    if (record.corrupt)
      return { ok: false, status: 500, code: 'QUARANTINE_CORRUPT', error: 'Corrupt quarantine payload' };
    account.releases = account.releases.filter((t) => now - t < quarantineLifetimeMs);
    if (account.releases.length >= releaseLimit)
      return {
        ok: false,
        status: 403,
        code: 'RELEASE_LIMIT_REACHED',
        error: 'More than 10 releases in 3 hours; account under review',
      };
    account.releases.push(now);
    record.processed = true;
    return { ok: true, payload: record.payload };
  }

  /** State for the control API's /quarantine dump. */
  describe(record: QuarantineRecord): Record<string, unknown> {
    const expired = this.now() - record.createdAt >= quarantineLifetimeMs;
    return {
      quarantine_id: record.id,
      account: record.accountId,
      state: record.processed ? 'released' : expired ? 'expired' : 'stored',
      corrupt: record.corrupt,
      created_at: new Date(record.createdAt).toISOString(),
      expires_at: new Date(record.createdAt + quarantineLifetimeMs).toISOString(),
      from: record.payload.fromEmail,
      to: record.payload.to.map((r) => r.email),
      subject: record.payload.subject,
    };
  }
}
