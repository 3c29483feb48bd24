import type { QuarantineStore } from '../store/quarantine';
import type { VendorApi } from '../upstream/api';
import { VendorError } from '../upstream/errors';

/** `mailbridge quarantine list`: one line per held submission, newest first. */
export function listQuarantine(store: QuarantineStore, now = new Date()): string[] {
  const records = store.list();
  if (!records.length) return ['No submissions are held in quarantine.'];
  return records.map((r) => {
    const state = r.status === 'held' && r.expiresAt <= now ? 'expired' : r.status;
    return `${r.quarantineId}  ${state.padEnd(8)}  held ${r.heldAt.toISOString()}  until ${r.expiresAt.toISOString()}  to ${r.recipient}  "${r.subject}"`;
  });
}

/** What each release error means for the user (spec 7.1). */
const releaseErrors: Record<string, string> = {
  QUARANTINE_EXPIRED: 'expired: the 3-hour release window has passed; send the email again (with changed content)',
  QUARANTINE_NOT_FOUND: 'not found: it was already released, or the id is wrong',
  QUARANTINE_FORBIDDEN: 'not yours: this quarantine record belongs to another vendor account',
  RELEASE_LIMIT_REACHED: 'limit reached: more than 10 releases in 3 hours; the vendor put the account under review',
  MISSING_QUARANTINE_ID: 'no quarantine id given',
  QUARANTINE_CORRUPT: 'the vendor says the held payload is corrupt; send the email again',
};

/** `mailbridge quarantine release ID`: releases and records the outcome. */
export async function releaseQuarantine(vendor: VendorApi, store: QuarantineStore, quarantineId: string): Promise<{ ok: boolean; text: string }> {
  try {
    const result = await vendor.releaseQuarantine(quarantineId);
    store.setStatus(quarantineId, 'released', result.id);
    return { ok: true, text: `Released ${quarantineId}: the vendor sanitized and queued it${result.id ? ` (email id ${result.id})` : ''}.` };
  } catch (err) {
    if (!(err instanceof VendorError)) throw err;
    const meaning = releaseErrors[err.code] ?? `${err.code}: ${err.message}`;
    store.setStatus(quarantineId, err.code === 'QUARANTINE_EXPIRED' ? 'expired' : err.code === 'QUARANTINE_NOT_FOUND' ? 'released' : 'failed', err.code);
    return { ok: false, text: `Could not release ${quarantineId}: ${meaning}` };
  }
}
