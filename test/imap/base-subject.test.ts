import { describe, expect, test } from 'vitest';
import { baseSubject } from '../../src/imap/base-subject';

describe('RFC 5256 base subject', () => {
  test.each([
    ['Re: hello', 'hello'],
    ['RE:   Re: re:hello', 'hello'],
    ['Fwd: hello', 'hello'],
    ['fw: hello', 'hello'],
    ['Re[2]: hello', 'hello'],
    ['[list] Re: hello', 'hello'],
    ['[list] hello', 'hello'],
    ['[list]', '[list]'],
    ['hello (fwd)', 'hello'],
    ['hello (fwd) (FWD)  ', 'hello'],
    ['[Fwd: Re: hello]', 'hello'],
    ['[fwd: [fwd: hello] (fwd)]', 'hello'],
    ['Re: [list] Re: hello (fwd)', 'hello'],
    ['hello\tworld', 'hello world'],
    ['', ''],
    ['Re:', ''],
    ['Réunion: bilan', 'Réunion: bilan'],
    ['Reply: not a leader', 'Reply: not a leader'],
  ])('%j -> %j', (subject, base) => {
    expect(baseSubject(subject)).toBe(base);
  });
});
