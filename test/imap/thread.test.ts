import { describe, expect, test } from 'vitest';
import { OrderingKeys } from '../../src/imap/ordering-keys';
import { orderedSubjectThreads, referencesThreads, type ThreadNode } from '../../src/imap/thread';

/** A message: UID, subject, sent day of March 2023, and extra header lines. */
const m = (uid: number, subject: string, day: number, ...headers: string[]) => ({
  uid,
  idate: 0,
  size: 0,
  keys: new OrderingKeys([
    `Message-ID: <${uid}@t>`,
    `Subject: ${subject}`,
    `Date: ${day} Mar 2023 10:00:00 +0000`,
    ...headers,
  ]),
});

/** A forest in RFC 5256's thread-list notation, dummies as "-". */
const write = (nodes: ThreadNode[]): string =>
  nodes.map((n) => `(${n.uid ?? '-'}${n.children.length ? ` ${write(n.children)}` : ''})`).join('');

describe('THREAD=ORDEREDSUBJECT', () => {
  test('grouped by base subject, each thread its first message with the rest as children', () => {
    const threads = orderedSubjectThreads([
      m(1, 'Plan', 3),
      m(2, 'Re: plan', 1),
      m(3, 'Budget', 2),
      m(4, 'Fwd: PLAN', 4),
    ]);
    expect(write(threads)).toBe('(2 (1)(4))(3)');
  });
});

describe('THREAD=REFERENCES', () => {
  test('replies under their parents, siblings by sent date', () => {
    const threads = referencesThreads([
      m(1, 'Plan', 1),
      m(2, 'Re: Plan', 3, 'References: <1@t>'),
      m(3, 'Re: Plan', 2, 'References: <1@t>'),
      m(4, 'Re: Plan', 4, 'References: <1@t> <2@t>'),
    ]);
    expect(write(threads)).toBe('(1 (3)(2 (4)))');
  });

  test('a missing parent is a dummy when it has several children, else its child takes its place', () => {
    const threads = referencesThreads([
      m(1, 'Lost', 2, 'In-Reply-To: <gone@t>'),
      m(2, 'Lost', 1, 'In-Reply-To: <gone@t>'),
      m(3, 'Other', 3, 'References: <gone2@t> <gone3@t>'),
    ]);
    expect(write(threads)).toBe('(- (2)(1))(3)');
  });

  test('threads merged by base subject: a reply joins the original, two originals get a dummy', () => {
    const threads = referencesThreads([m(1, 'Plan', 1), m(2, 'Re: Plan', 2), m(3, 'Budget', 3), m(4, 'Budget', 4)]);
    expect(write(threads)).toBe('(1 (2))(- (3)(4))');
  });

  test('a thread merged by subject takes its place among the siblings and roots by sent date', () => {
    const threads = referencesThreads([
      m(1, 'Plan', 1),
      m(2, 'Re: Plan', 5, 'References: <1@t>'),
      m(3, 'Re: Plan', 3),
      m(4, 'Budget', 6, 'In-Reply-To: <gone@t>'),
      m(5, 'Budget', 4, 'In-Reply-To: <gone@t>'),
      m(6, 'Re: Budget', 2),
    ]);
    expect(write(threads)).toBe('(1 (3)(2))(- (6)(5)(4))');
  });

  test('references that would make a loop are not linked; a duplicate Message-ID is a message of its own', () => {
    const threads = referencesThreads([
      m(1, 'A', 1, 'References: <2@t>'),
      m(2, 'B', 2, 'References: <1@t>'),
      { ...m(3, 'C', 3), keys: new OrderingKeys(['Message-ID: <1@t>', 'Subject: C', 'Date: 3 Mar 2023 10:00 +0000']) },
    ]);
    expect(write(threads)).toBe('(2 (1))(3)');
  });
});
