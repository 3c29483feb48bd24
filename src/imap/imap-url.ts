import type { MessagePartRef, SectionSelector } from '../domain/catenate';

/**
 * The IMAP URLs (RFC 5092) a CATENATE part may give: relative references to a message of the
 * session's own account, `/mailbox[;UIDVALIDITY=n]/;UID=n[/;SECTION=s][/;PARTIAL=a[.b]]`, or
 * relative to the selected mailbox (`;UID=n...`), resolved as RFC 3986 does against the base
 * `imap://user@host/<selected>/`. As in Dovecot, an absolute URL (`imap://...`), a search
 * query, URLAUTH and anything else that names no message part is none (BADURL).
 */

const maxNumber = 2 ** 32 - 1;

/** A path's message part: mailbox (where `;` is percent-encoded, RFC 5092 bchar), then the UID and what follows it. */
const messagePart =
  /^([^;]+?)(?:;UIDVALIDITY=([1-9]\d*))?\/;UID=([1-9]\d*)(?:\/;SECTION=(.*?))?(?:\/;PARTIAL=(\d+)(?:\.([1-9]\d*))?)?$/i;

/** What `url` names, or null; `selected` is the path of the selected mailbox, if any. */
export function parseMessageUrl(url: string, selected: string | null): MessagePartRef | null {
  // an absolute URL (a scheme, or an authority) could name another server or user
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('//')) return null;
  let path: string;
  if (url.startsWith('/')) path = url.slice(1);
  else if (selected !== null) path = `${encodeURIComponent(selected).replace(/%2F/gi, '/')}/${url}`;
  else path = url;
  const m = messagePart.exec(path);
  if (!m) return null;
  const [, encMailbox, uidValidity, uid, encSection, start, length] = m;
  const mailbox = decode(encMailbox);
  const sectionText = encSection === undefined ? null : decode(encSection);
  if (!mailbox || sectionText === '' || [uidValidity, uid, start, length].some((n) => n && Number(n) > maxNumber))
    return null;
  const section = sectionText === null ? null : parseSection(sectionText);
  if (sectionText !== null && !section) return null;
  return {
    mailbox,
    uidValidity: uidValidity ? Number(uidValidity) : null,
    uid: Number(uid),
    section,
    partial: start === undefined ? null : { start: Number(start), length: length ? Number(length) : null },
  };
}

/** Percent-decoded UTF-8 (RFC 5092 names mailboxes in UTF-8), or null when malformed. */
function decode(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/** A section as in FETCH BODY[...] (RFC 3501 section-spec), or null. */
export function parseSection(text: string): SectionSelector | null {
  const m = /^(?:(\d+(?:\.\d+)*)(?:\.(.+))?|(.+))$/.exec(text);
  if (!m) return null;
  const path = m[1] ?? '';
  const spec = m[2] ?? m[3];
  if (spec === undefined) return { path, type: 'content' };
  const upper = spec.toUpperCase();
  if (upper === 'HEADER') return { path, type: 'header' };
  if (upper === 'TEXT') return { path, type: 'text' };
  if (upper === 'MIME') return path ? { path, type: 'mime' } : null;
  const fields = /^HEADER\.FIELDS(\.NOT)? \(([^()]+)\)$/i.exec(spec);
  if (!fields) return null;
  const headers = fields[2].split(' ').map((name) => name.replace(/^"(.*)"$/, '$1').toLowerCase());
  if (headers.some((name) => !/^[!#-'*+\-.0-9^-~A-Z]+$/i.test(name))) return null;
  return { path, type: fields[1] ? 'header.fields.not' : 'header.fields', headers };
}
