import { describe, expect, test } from 'vitest';
import { OrderingKeys } from '../../src/imap/ordering-keys';
import { messageKeys } from '../../src/mime/message-keys';
import { orderedSubjectThreads, referencesThreads, type ThreadNode } from '../../src/imap/thread';

/** The ordering keys of a message with these header lines. */
const orderingKeys = (lines: string[]) => new OrderingKeys(messageKeys(lines));

/** A message: UID, subject, sent day of March 2023, and extra header lines. */
const m = (uid: number, subject: string, day: number, ...headers: string[]) => ({
  uid,
  idate: 0,
  size: 0,
  keys: orderingKeys([
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
      { ...m(3, 'C', 3), keys: orderingKeys(['Message-ID: <1@t>', 'Subject: C', 'Date: 3 Mar 2023 10:00 +0000']) },
    ]);
    expect(write(threads)).toBe('(2 (1))(3)');
  });
});

/** Each node's only child, from the root down: the UIDs of a chain without siblings (else the node that has several). */
function chain(root: ThreadNode): Array<number | null> {
  const uids: Array<number | null> = [];
  for (let n: ThreadNode | undefined = root; n; n = n.children[0]) {
    uids.push(n.uid);
    if (n.children.length > 1) throw new Error(`${n.uid} has ${n.children.length} children`);
  }
  return uids;
}

describe('THREAD=REFERENCES on a reply chain 10,000 deep (mail anyone can send)', () => {
  const depth = 10_000;
  const uids = Array.from({ length: depth }, (_, i) => i + 1);

  test('each message In-Reply-To the one before: one thread, each the only child of the one before', () => {
    const messages = uids.map((uid) => m(uid, 'Re: deep', 1, ...(uid > 1 ? [`In-Reply-To: <${uid - 1}@t>`] : [])));
    const threads = referencesThreads(messages);
    expect(threads).toHaveLength(1);
    expect(chain(threads[0])).toEqual(uids);
  });

  test('the replies first, each References the one before: the same thread', () => {
    const messages = uids.map((uid) => m(uid, 'deep', 1, ...(uid > 1 ? [`References: <${uid - 1}@t>`] : [])));
    const threads = referencesThreads(messages.reverse());
    expect(threads).toHaveLength(1);
    expect(chain(threads[0])).toEqual(uids);
  });

  test('under a missing first message, as the chain of its only reply', () => {
    const messages = uids.map((uid) => m(uid, 'deep', 1, `References: <${uid > 1 ? uid - 1 : 'gone'}@t>`));
    expect(chain(referencesThreads(messages)[0])).toEqual(uids);
  });
});

describe('THREAD=REFERENCES on a References header naming 100,000 ids', () => {
  test('none of them held: the message alone, its chain of missing ancestors pruned', () => {
    const ids = Array.from({ length: 100_000 }, (_, i) => `<gone${i}@t>`).join(' ');
    const threads = referencesThreads([m(1, 'long', 1, `References: ${ids}`), m(2, 'other', 2)]);
    expect(write(threads)).toBe('(1)(2)');
  });

  test('the first of them held: the message its only reply', () => {
    const ids = Array.from({ length: 100_000 }, (_, i) => `<${i ? `gone${i}` : 2}@t>`).join(' ');
    const threads = referencesThreads([m(1, 'Re: long', 2, `References: ${ids}`), m(2, 'long', 1)]);
    expect(write(threads)).toBe('(2 (1))');
  });
});
