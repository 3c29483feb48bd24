/**
 * RFC 5256 2.1: the base subject SORT and THREAD compare, from the decoded Subject (step 1, the
 * caller's: RFC 2047 words decoded). Steps 2 to 6 follow the RFC's ABNF:
 *   subj-trailer = "(fwd)" / WSP;  subj-blob = "[" *BLOBCHAR "]" *WSP
 *   subj-refwd = ("re" / ("fw" ["d"])) *WSP [subj-blob] ":"
 *   subj-leader = (*subj-blob subj-refwd) / WSP;  subj-fwd-hdr = "[fwd:";  subj-fwd-trl = "]"
 */
const trailer = /(?:\(fwd\)|[ \t])$/i;
const leader = /^(?:(?:\[[^[\]]*\][ \t]*)*(?:re|fwd?)[ \t]*(?:\[[^[\]]*\][ \t]*)?:|[ \t])/i;
const blob = /^\[[^[\]]*\][ \t]*/;

export function baseSubject(decoded: string): string {
  // step 1's whitespace rule: folding and tabs become one space
  let subject = decoded.replace(/\r?\n/g, '').replace(/[ \t]+/g, ' ');
  for (;;) {
    // (2) trailers, as long as there are any
    while (trailer.test(subject)) subject = subject.replace(trailer, '');
    // (3) to (5): leaders, and a blob that does not leave the subject empty
    for (;;) {
      const lead = leader.exec(subject);
      if (lead) {
        subject = subject.slice(lead[0].length);
        continue;
      }
      const b = blob.exec(subject);
      if (b && b[0].length < subject.length) {
        subject = subject.slice(b[0].length);
        continue;
      }
      break;
    }
    // (6) a forwarded subject "[fwd: ...]" is taken apart and read again from (2)
    if (/^\[fwd:/i.test(subject) && subject.endsWith(']')) {
      subject = subject.slice(5, -1);
      continue;
    }
    return subject;
  }
}
