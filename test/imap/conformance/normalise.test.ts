import { describe, expect, test } from 'vitest';
import { normalise, responses } from './normalise';

/** The normaliser removes only what two correct servers may answer differently. */

describe('conformance normaliser', () => {
  test('a literal stays inside its response, CRLFs and all', () => {
    expect(responses('* 1 FETCH (BODY[] {5}\r\na\r\nb\r\n UID 3)\r\nt1 OK done\r\n')).toEqual([
      '* 1 FETCH (BODY[] {5}\r\na\r\nb\r\n UID 3)',
      't1 OK done',
    ]);
  });

  test('what legitimately differs compares equal', () => {
    const dovecot =
      '* OK [UIDVALIDITY 1795467028] UIDs valid\r\n* CAPABILITY IMAP4rev1 IDLE\r\n* OK [HIGHESTMODSEQ 7] x\r\n' +
      '* 1 FETCH (UID 4 FLAGS (\\Seen \\Flagged) BODY ("text" "plain" ("charset" "utf-8") NIL NIL "7bit" 2 1) BODY[TEXT] "hi")\r\n' +
      '* LIST (\\HasNoChildren) "/" Labels/&AOk-t&AOk-\r\nt1 OK [READ-WRITE] Select completed (0.001 + 0.000 secs).\r\n';
    const bridge =
      '* LIST () "/" "Labels/&AOk-t&AOk-"\r\n* OK [UIDVALIDITY 42] UIDs valid\r\n' +
      '* 1 FETCH (BODY[TEXT] {2}\r\nhi FLAGS (\\Flagged \\Seen) BODY ("TEXT" "PLAIN" ("CHARSET" "utf-8") NIL NIL "7BIT" 2 1) UID 4)\r\n' +
      't1 OK [READ-WRITE] SELECT completed\r\n';
    expect(normalise(bridge)).toEqual(normalise(dovecot));
  });

  test('the INTERNALDATE of a message appended just now compares equal either side of a second; an older one does not', () => {
    const stamp = (ms: number) => {
      const [, day, month, year, time] = /^\w+, (\d+) (\w+) (\d+) (\S+)/.exec(new Date(ms).toUTCString()) ?? [];
      return `* 1 FETCH (INTERNALDATE "${day}-${month}-${year} ${time} +0000")\r\nt1 OK\r\n`;
    };
    const now = Date.now();
    expect(normalise(stamp(now - 1000))).toEqual(normalise(stamp(now)));
    expect(normalise(stamp(now - 1000))).toEqual(['* 1 FETCH (INTERNALDATE <now>)', 't1 OK']);
    expect(normalise(stamp(now - 86_400_000))).not.toEqual(normalise(stamp(now - 86_401_000)));
    expect(normalise('* 1 FETCH (INTERNALDATE " 5-Jan-2023 10:00:00 -0500")\r\nt1 OK\r\n')).toEqual([
      '* 1 FETCH (INTERNALDATE " 5-Jan-2023 10:00:00 -0500")',
      't1 OK',
    ]);
  });

  test.each([
    ['a flag', '* 1 FETCH (FLAGS (\\Seen))\r\nt1 OK\r\n', '* 1 FETCH (FLAGS (\\Seen Later))\r\nt1 OK\r\n'],
    ['a byte of content', '* 1 FETCH (BODY[] {3}\r\nabc)\r\nt1 OK\r\n', '* 1 FETCH (BODY[] {3}\r\nabd)\r\nt1 OK\r\n'],
    ['a response code', 't1 NO [NONEXISTENT] no\r\n', 't1 NO no\r\n'],
    ['a status', 't1 NO x\r\n', 't1 BAD x\r\n'],
    [
      'NIL against an empty string',
      '* 1 FETCH (ENVELOPE (NIL ""))\r\nt1 OK\r\n',
      '* 1 FETCH (ENVELOPE (NIL NIL))\r\nt1 OK\r\n',
    ],
    ['a message number', '* 2 EXISTS\r\nt1 OK\r\n', '* 3 EXISTS\r\nt1 OK\r\n'],
    ['a mailbox name', '* LIST () "/" Labels/a\r\nt1 OK\r\n', '* LIST () "/" Labels/b\r\nt1 OK\r\n'],
  ])('%s still differs', (_what, a, b) => {
    expect(normalise(a)).not.toEqual(normalise(b));
  });
});
