import libmime from 'libmime';

/**
 * A header value as the text it says. imap-core gives header lines as binary strings (one
 * character a byte), so a header written in UTF-8 (RFC 6532, as drafts and internationalised
 * mail are) reads as Latin-1 until its bytes are decoded; encoded words (RFC 2047) are decoded
 * after. Bytes that are not UTF-8 stay one character each, as Latin-1.
 */
export function headerText(raw: string): string {
  // ASCII without an encoded word (or the NUL of decodeWords' own join marker) reads as it is
  if (!/[\x80-\xff]/.test(raw)) return raw.includes('=?') || raw.includes('\0') ? libmime.decodeWords(raw) : raw;
  const bytes = Buffer.from(raw, 'latin1');
  const text = bytes.toString('utf8');
  return libmime.decodeWords(Buffer.from(text, 'utf8').equals(bytes) ? text : raw);
}
