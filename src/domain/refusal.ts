import { isLocalMessage } from '../store';

/** An operation the bridge will not perform, with the reason shown to the user. */
export class Refusal extends Error {
  constructor(
    readonly reason: 'cannot' | 'nonexistent' | 'unavailable' | 'alreadyexists',
    message: string,
  ) {
    super(message);
    this.name = 'Refusal';
  }
}

/** Drafts the bridge keeps itself cannot take part in vendor operations; say so instead of losing them. */
export function requireVendorMessages<T extends { messageUid: string }>(rows: T[], what: string): T[] {
  if (rows.some((r) => isLocalMessage(r.messageUid)))
    throw new Refusal('cannot', `Drafts kept by the bridge are not vendor messages and cannot be ${what}`);
  return rows;
}
