import { headerText } from './header-text';
import { casemap } from './casemap';

/**
 * The "base subject" of RFC 5256 section 2.1, which SORT SUBJECT and both THREAD algorithms
 * compare: the subject without its reply and forward markers ("Re:", "Fwd:", "[list]",
 * "(fwd)", "[Fwd: ...]"). Computed on the i;unicode-casemap form (./casemap.ts), so the ABNF's
 * case-insensitive literals are matched as capitals and two base subjects compare with `===`.
 */

export interface BaseSubject {
  /** The base subject, in casemap form. */
  base: string;
  /**
   * Whether a subj-refwd, "(fwd)" trailer or "[fwd: ...]" was removed: THREAD=REFERENCES
   * prefers the original over its replies when merging threads by subject (RFC 5256 section 3).
   */
  replyOrForward: boolean;
}

/** subj-blob = "[" *BLOBCHAR "]" *WSP, at the start; its length or 0. */
function blobLength(s: string): number {
  const m = /^\[[^[\]]*\] ?/.exec(s);
  return m ? m[0].length : 0;
}

/** subj-leader = (*subj-blob subj-refwd) / WSP; subj-refwd = ("re" / ("fw" ["d"])) *WSP [subj-blob] ":". */
function leaderLength(s: string): { length: number; refwd: boolean } {
  if (s.startsWith(' ')) return { length: 1, refwd: false };
  let at = 0;
  for (let blob = blobLength(s); blob; blob = blobLength(s.slice(at))) at += blob;
  const marker = /^(?:RE|FWD?) ?/.exec(s.slice(at));
  if (!marker) return { length: 0, refwd: false };
  at += marker[0].length;
  at += blobLength(s.slice(at));
  return s[at] === ':' ? { length: at + 1, refwd: true } : { length: 0, refwd: false };
}

export function baseSubject(subject: string): BaseSubject {
  return baseOfSubjectText(casemap(headerText(subject)));
}

/** baseSubject of a subject already decoded and in casemap form (what SEARCH SUBJECT matches). */
export function baseOfSubjectText(text: string): BaseSubject {
  // (1) encoded words decoded (by the caller), then every run of white space one space
  let s = text.replace(/[ \t\r\n]+/g, ' ');
  let replyOrForward = false;
  for (;;) {
    // (2) subj-trailer = "(fwd)" / WSP, repeatedly
    for (let trailer = /(?: |\(FWD\))$/.exec(s); trailer; trailer = /(?: |\(FWD\))$/.exec(s)) {
      if (trailer[0] !== ' ') replyOrForward = true;
      s = s.slice(0, -trailer[0].length);
    }
    // (3) a subj-leader, (4) a subj-blob that leaves something, (5) until neither matches
    for (;;) {
      const leader = leaderLength(s);
      if (leader.refwd) replyOrForward = true;
      s = s.slice(leader.length);
      const blob = blobLength(s);
      if (blob && blob < s.length) s = s.slice(blob);
      else if (!leader.length) break;
    }
    // (6) subj-fwd-hdr "[fwd:" ... subj-fwd-trl "]", then again from (2)
    if (!(s.startsWith('[FWD:') && s.endsWith(']'))) return { base: s, replyOrForward };
    s = s.slice(5, -1);
    replyOrForward = true;
  }
}
