import type { QuarantineLog } from '../store';
import type { QuarantineRecord } from '../model/quarantine-record';
import type { VendorApi } from '../upstream/api';
import { TransportError, VendorError } from '../upstream/errors';
import { releaseCommand } from './error-map';

/** What `mailbridge quarantine list` and `release` print; the CLI only wires these up. */

const stamp = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** held records past their 3 hours are shown as expired even before a release attempt says so. */
function stateOf(r: QuarantineRecord, now: Date): string {
  if (r.status === 'held' && r.expiresAt <= now) return 'expired';
  if (r.status === 'released') return `released${r.detail ? ` as ${r.detail}` : ''}`;
  return r.status === 'held' && r.detail ? `held (last release refused: ${r.detail})` : r.status;
}

/** `mailbridge quarantine list`: one line per held recipient copy, newest first. */
export function listQuarantine(store: QuarantineLog, now = new Date(), configFile: string | null = null): string[] {
  const records = store.list();
  if (!records.length) return ['No submissions are held in quarantine.'];
  return records.map((r) => {
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

/** Each refusal of the release route (spec 7.1), said as what it means and what to do. */
const releaseRefusals: Readonly<Record<string, string>> = {
  QUARANTINE_EXPIRED:
    'expired: the vendor keeps held emails for 3 hours only and this one is gone; ' +
    'send the email again (after changing what tripped the spam filter)',
  RELEASE_LIMIT_REACHED:
    'limit reached: the vendor allows 10 releases per 3 hours and has put the account under review; ' +
    'wait, or contact the vendor',
  QUARANTINE_FORBIDDEN:
    "not yours: the record belongs to another vendor account than the bridge's send key (vendor.apiKey)",
  QUARANTINE_NOT_FOUND: 'not found: the id is unknown to the vendor or the email was already released',
  QUARANTINE_CORRUPT: 'the vendor cannot read the held copy (corrupt payload); send the email again',
  MISSING_QUARANTINE_ID:
    'no quarantine id was given; pass the id from the SMTP rejection or "mailbridge quarantine list"',
};

function refusalText(err: VendorError, local: QuarantineRecord | null): string {
  if (err.code === 'QUARANTINE_NOT_FOUND' && local?.status === 'released') {
    const id = local.detail ? ` (email id ${local.detail})` : '';
    return `already released: this bridge released it before${id}; nothing more to do`;
  }
  return releaseRefusals[err.code] ?? `the vendor refused (${err.code}: ${err.message.slice(0, 160)})`;
}

/** `mailbridge quarantine release ID`: asks the vendor, records the outcome, explains it. */
export async function releaseQuarantine(
  vendor: VendorApi,
  store: QuarantineLog,
  quarantineId: string,
): Promise<{ ok: boolean; text: string }> {
  const local = store.get(quarantineId);
  try {
    const result = await vendor.releaseQuarantine(quarantineId);
    store.markReleased(quarantineId, result.id);
    const to = local ? ` to ${local.recipient}` : '';
    return {
      ok: true,
      text:
        `Released ${quarantineId}: the vendor sanitizes its subject and body and delivers it${to}` +
        `${result.id ? ` (email id ${result.id})` : ''}.`,
    };
  } catch (err) {
    if (err instanceof TransportError)
      return { ok: false, text: `Could not release ${quarantineId}: the vendor did not answer; try again` };
    if (!(err instanceof VendorError)) throw err;
    store.markRefused(quarantineId, err.code);
    return { ok: false, text: `Could not release ${quarantineId}: ${refusalText(err, local)}` };
  }
}
