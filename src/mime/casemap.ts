/**
 * The i;unicode-casemap comparator of RFC 5051, which IMAP SEARCH uses for its substring
 * matches (RFC 3501 6.4.4 leaves it open; Dovecot, the reference, uses this one): each
 * character mapped to its simple titlecase, then the whole string decomposed (NFKD). So
 * `übergabe` matches `ÜBERGABE`, final sigma matches capital sigma, a precomposed `é`
 * matches `e` + combining acute, but accents still count (`reunion` does not match
 * `Réunion`) and `ß` is not `ss`, as in Dovecot.
 */

/**
 * Characters whose full uppercase is more than one character (ß -> SS, ŉ -> ʼN, ﬁ -> FI):
 * they have no single-character titlecase, so they stay as they are. JavaScript's
 * toUpperCase is the full mapping; this set lets the rest of a string go through it at once.
 */
const expanding = (() => {
  const chars: string[] = [];
  for (let cp = 0x80; cp <= 0xffff; cp++) {
    const ch = String.fromCharCode(cp);
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    if (ch.toUpperCase().length > 1) chars.push(ch);
  }
  return new RegExp(`[${chars.join('')}]`, 'u');
})();

const ascii = /^[\x00-\x7f]*$/;

const expandingPieces = new RegExp(`(${expanding.source})`, 'u');

/** The string in the comparator's canonical form: compare or search these, never the originals. */
export function casemap(text: string): string {
  if (ascii.test(text)) return text.toUpperCase();
  // decomposed first, so a letter that has no single-character capital only with its accent
  // (ΐ) is matched through its base letter
  const decomposed = text.normalize('NFKD');
  const upper = expanding.test(decomposed)
    ? decomposed
        .split(expandingPieces)
        .map((piece, i) => (i % 2 ? piece : piece.toUpperCase()))
        .join('')
    : decomposed.toUpperCase();
  return upper.normalize('NFKD');
}
