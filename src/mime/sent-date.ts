/**
 * The "sent date" of RFC 5256 section 2.2, which SORT DATE and THREAD order by: the Date
 * header as an instant (RFC 5322 3.3, its obsolete forms included: two- and three-digit
 * years, zone names, comments), or the INTERNALDATE when there is no Date header or it
 * cannot be read.
 */

const months = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

/** obs-zone names (RFC 5322 4.3) in minutes east of UTC; military letters and unknown names are -0000. */
const zoneNames: Record<string, number> = {
  UT: 0,
  GMT: 0,
  EST: -300,
  EDT: -240,
  CST: -360,
  CDT: -300,
  MST: -420,
  MDT: -360,
  PST: -480,
  PDT: -420,
};

const dateTime =
  /^(?:[A-Z]+ ?, ?)?(\d{1,2}) ?([A-Z]{3})[A-Z]* ?(\d{2,4}) (\d{1,2}) ?: ?(\d{2})(?: ?: ?(\d{2}))?(?: ?([+-]\d{4}|[A-Z]+))?/;

/** A Date header value as epoch milliseconds, or null if it is not a date. */
export function parseDateHeader(value: string): number | null {
  const text = value
    .replace(/\([^()]*\)/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toUpperCase();
  const m = dateTime.exec(text);
  if (!m) return null;
  const month = months.indexOf(m[2]);
  const day = Number(m[1]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6] ?? '0');
  if (month < 0 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return null;
  const written = Number(m[3]);
  const year = m[3].length === 4 ? written : m[3].length === 3 || written >= 50 ? 1900 + written : 2000 + written;
  const zone = m[7] ?? '';
  const offset = /^[+-]/.test(zone)
    ? (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(3)))
    : (zoneNames[zone] ?? 0);
  return Date.UTC(year, month, day, hour, minute, second) - offset * 60_000;
}

/** A message's sent date from its header lines (as stored), else its INTERNALDATE. */
export function sentDate(headerLines: readonly string[], idate: number): number {
  const line = headerLines.find((l) => /^date:/i.test(l));
  return (line === undefined ? null : parseDateHeader(line.slice(5))) ?? idate;
}
