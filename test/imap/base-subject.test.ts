import { describe, expect, test } from 'vitest';
import { baseSubject } from '../../src/mime/base-subject';

/** RFC 5256 2.1: the base subject, in i;unicode-casemap form, and whether the subject marked a reply or forward. */
describe('RFC 5256 base subject', () => {
  const cases: Array<[string, string, boolean]> = [
    // (1) encoded words decoded, tabs and continuations to one space each run
    ['=?UTF-8?Q?=C3=9Cbergabe?= des Projekts', 'ÜBERGABE DES PROJEKTS'.normalize('NFKD'), false],
    ['a\t \r\n  b', 'A B', false],
    // (2) subj-trailer: "(fwd)" and white space, repeatedly
    ['hello (fwd) (FWD)  ', 'HELLO', true],
    ['hello ', 'HELLO', false],
    // (3) subj-leader: (*subj-blob subj-refwd) / WSP, case-insensitively
    ['Re: hello', 'HELLO', true],
    ['RE:hello', 'HELLO', true],
    ['re : hello', 'HELLO', true],
    ['Fw: hello', 'HELLO', true],
    ['FWD: hello', 'HELLO', true],
    ['Re[2]: hello', 'HELLO', true],
    ['Re [2]: hello', 'HELLO', true],
    ['[list] Re: hello', 'HELLO', true],
    ['[a][b] Re: hello', 'HELLO', true],
    ['Re: Re: Fwd: hello', 'HELLO', true],
    ['Reply: hello', 'REPLY: HELLO', false],
    ['Re hello', 'RE HELLO', false],
    // (4) a subj-blob is removed only if something is left
    ['[list] hello', 'HELLO', false],
    ['[list]', '[LIST]', false],
    ['[list] [other]', '[OTHER]', false],
    ['[unclosed hello', '[UNCLOSED HELLO', false],
    // (5) (3) and (4) until nothing matches
    ['[list] Re: [list] Re: hello', 'HELLO', true],
    // (6) subj-fwd-hdr and subj-fwd-trl, then again from (2)
    ['[Fwd: hello]', 'HELLO', true],
    ['[fwd: Re: hello (fwd)]', 'HELLO', true],
    ['Re: [Fwd: [list] hello]', 'HELLO', true],
    ['[Fwd: hello', '[FWD: HELLO', false],
    // nothing left
    ['', '', false],
    ['Re: ', '', true],
    ['   ', '', false],
  ];
  for (const [subject, base, replyOrForward] of cases)
    test(JSON.stringify(subject), () => {
      expect(baseSubject(subject)).toEqual({ base, replyOrForward });
    });

  test('letters compare under i;unicode-casemap', () => {
    expect(baseSubject('Re: réunion').base).toBe(baseSubject('RÉUNION').base);
    expect(baseSubject('Re: Straße').base).not.toBe(baseSubject('STRASSE').base);
  });
});
