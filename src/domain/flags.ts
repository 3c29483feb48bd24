import type { FlagChange } from './connector';
import type { MailMessage } from './message';

/**
 * IMAP flags <-> vendor message state.
 *   \Seen <-> seen, \Flagged <-> flagged, $Important <-> important, keyword <-> label,
 *   $Snoozed <- snoozedUntil (read-only: the spec shows no snooze command).
 * Kept locally only (the vendor has no field for them, and turning client bookkeeping into
 * webmail labels would litter the user's mailbox): \Answered, \Draft, \Deleted, and keywords
 * that are client bookkeeping by convention: "$"-prefixed ones (RFC 5788 style: $Forwarded,
 * $MDNSent, $Junk, ...), Junk/NonJunk/NotJunk (Thunderbird), $label1.. (old Thunderbird tags).
 */

const vendorFlagFields: Array<[string, keyof FlagChange]> = [
  ['\\Seen', 'seen'],
  ['\\Flagged', 'flagged'],
  ['$Important', 'important'],
];

const localKeywords = new Set(['junk', 'nonjunk', 'notjunk']);

/**
 * Shown from vendor state that no vendor command changes: $Snoozed while snoozedUntil is set.
 * A client's STORE of one changes nothing (the flag stays as the vendor says).
 */
const readOnlyFlags = ['$Snoozed'];

export function isReadOnlyFlag(flag: string): boolean {
  return readOnlyFlags.some((f) => f.toLowerCase() === flag.toLowerCase());
}

/** `next` with the read-only flags exactly as `current` has them. */
export function keepReadOnlyFlags(current: readonly string[], next: readonly string[]): string[] {
  return [...next.filter((f) => !isReadOnlyFlag(f)), ...current.filter(isReadOnlyFlag)];
}

export function isVendorFlag(flag: string): boolean {
  return vendorFlagFields.some(([f]) => f.toLowerCase() === flag.toLowerCase());
}

/** True for flags stored only in the bridge's state. */
export function isLocalFlag(flag: string): boolean {
  if (isVendorFlag(flag) || isReadOnlyFlag(flag)) return false;
  return flag.startsWith('\\') || flag.startsWith('$') || localKeywords.has(flag.toLowerCase());
}

/** RFC 3501 keyword: an atom, 7-bit printable characters without atom-specials. */
const atom = /^[^\x00-\x20\x7f-\uffff(){%*"\\\]]+$/;

/** Whether a client may STORE or APPEND this keyword (system flags are checked by imap-core). */
export function isValidKeyword(flag: string): boolean {
  return flag.startsWith('\\') || atom.test(flag);
}

/**
 * Labels that are IMAP atoms become keywords. Any other (a space, a non-ASCII letter, a
 * parenthesis) is shown only as its Labels/ folder: FLAGS never carry 8-bit bytes.
 */
export function labelToKeyword(label: string): string | null {
  return atom.test(label) && !isLocalFlag(label) && !isVendorFlag(label) && !isReadOnlyFlag(label) ? label : null;
}

/** Flags the vendor state implies; labels that cannot be IMAP atoms are shown only as Labels/ folders. */
export function vendorFlags(
  msg: Pick<MailMessage, 'seen' | 'flagged' | 'important' | 'labels'> & Partial<Pick<MailMessage, 'snoozedUntil'>>,
): string[] {
  const flags: string[] = [];
  if (msg.seen) flags.push('\\Seen');
  if (msg.flagged) flags.push('\\Flagged');
  if (msg.important) flags.push('$Important');
  if (msg.snoozedUntil) flags.push('$Snoozed');
  for (const label of msg.labels ?? []) {
    const kw = labelToKeyword(label);
    if (kw) flags.push(kw);
  }
  return flags;
}

/** Full flag list: vendor-derived flags plus the locally kept ones from `current`. */
export function mergeFlags(vendor: string[], current: readonly string[]): string[] {
  return [...vendor, ...current.filter(isLocalFlag)];
}

export interface FlagDiff {
  change: FlagChange;
  addLabels: string[];
  removeLabels: string[];
}

/** What must go upstream to turn `before` into `after` (local flags excluded). */
export function diffVendorFlags(before: readonly string[], after: readonly string[]): FlagDiff {
  const has = (set: readonly string[], f: string) => set.some((x) => x.toLowerCase() === f.toLowerCase());
  const change: FlagChange = {};
  for (const [flag, field] of vendorFlagFields) {
    if (has(before, flag) !== has(after, flag)) change[field] = has(after, flag);
  }
  const labelsOf = (set: readonly string[]) =>
    set.filter((f) => !isLocalFlag(f) && !isVendorFlag(f) && !isReadOnlyFlag(f));
  const b = labelsOf(before);
  const a = labelsOf(after);
  return { change, addLabels: a.filter((f) => !has(b, f)), removeLabels: b.filter((f) => !has(a, f)) };
}

export function isEmptyDiff(d: FlagDiff): boolean {
  return Object.keys(d.change).length === 0 && d.addLabels.length === 0 && d.removeLabels.length === 0;
}
