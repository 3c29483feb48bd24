import type { AccountId } from './account-id';

/** A submission the vendor's spam filter held, one per recipient copy (store/quarantine.ts). */

/** held: releasable until expiresAt; released: by this bridge; expired: the vendor said 410. */
export type QuarantineStatus = 'held' | 'released' | 'expired';

export interface QuarantineRecord {
  quarantineId: string;
  account: AccountId;
  recipient: string;
  subject: string;
  messageId: string | null;
  heldAt: Date;
  expiresAt: Date;
  status: QuarantineStatus;
  /** released: the vendor's email id; held: the last refusal code of a release attempt. */
  detail: string | null;
}
