import { expect, test } from 'vitest';
import { control, mailbox, vendorFolder } from '../support/bridge-harness';
import { useConformance } from '../support/conformance';
import { ManualClock } from '../support/manual-clock';
import type { RawSession } from '../support/raw-session';

/**
 * RFC 5267 4.3 contexts updated incrementally answer what a full evaluation answers: random
 * sequences of changes (STOREs, flags changed at the vendor, new mail a poll brings, APPENDs,
 * expunges here and at the vendor), and after each one the result each context's ADDTO and
 * REMOVEFROM leave the client with is the full UID SEARCH of another session, for queries
 * mixing flags with content terms under OR and NOT.
 */

// each step's full searches ask the vendor: its rate windows pass on a clock of their own
const c = useConformance({ sandbox: { messages: 8 }, vendorClock: new ManualClock() });

const words = ['alpha', 'Beta', 'gamma', 'DELTA'];

const queries = [
  'BODY "alpha" UNFLAGGED',
  'OR (BODY "beta" FLAGGED) (SUBJECT "gamma" UNSEEN)',
  'NOT TEXT "alpha" KEYWORD Blue',
  'OR FLAGGED NOT BODY "delta"',
  'SEEN SMALLER 100000 NOT OR SUBJECT "beta" BODY "gamma"',
  'OR UNSEEN (TEXT "delta" NOT KEYWORD Blue)',
];
/** A SORT context too: its updates carry positions, its set is compared. */
const sortQuery = 'OR BODY "alpha" FLAGGED';
/** \Recent is the session's own: this one is compared with a full search of the same session. */
const recentQuery = 'OR NEW (BODY "gamma" FLAGGED)';

/** A small seeded generator (mulberry32), so that a failing sequence can be run again. */
function random(seed: number): (n: number) => number {
  let a = seed;
  return (n) => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

function numbers(set: string): number[] {
  return set.split(',').flatMap((part) => {
    const [from, to = from] = part.split(':').map(Number);
    return Array.from({ length: to - from + 1 }, (_, i) => from + i);
  });
}

/** Each context's UIDs as the client keeps them, from the first answer and every update after. */
class ClientContexts {
  readonly uids = new Map<string, Set<number>>();

  start(tag: string, answer: string): void {
    const all = new RegExp(`^\\* ESEARCH \\(TAG "${tag}"\\) UID(?: ALL (\\S+))?\\r$`, 'm').exec(answer);
    if (!all) throw new Error(`no ESEARCH for ${tag} in ${answer}`);
    this.uids.set(tag, new Set(all[1] ? numbers(all[1]) : []));
  }

  /** How many ADDTO and REMOVEFROM came: a sequence that moved no context proves nothing. */
  readonly updates = { ADDTO: 0, REMOVEFROM: 0 };

  apply(answer: string): void {
    for (const [, tag, items] of answer.matchAll(/^\* ESEARCH \(TAG "([^"]+)"\) UID (.*)\r$/gm)) {
      const kept = this.uids.get(tag);
      if (!kept) continue;
      for (const [, name, groups] of items.matchAll(/(ADDTO|REMOVEFROM) \(([^)]*)\)/g)) {
        this.updates[name as 'ADDTO' | 'REMOVEFROM']++;
        const parts = groups.split(' ');
        for (let i = 1; i < parts.length; i += 2)
          for (const uid of numbers(parts[i])) {
            if (name === 'ADDTO') kept.add(uid);
            else kept.delete(uid);
          }
      }
    }
  }
}

function tagOf(answer: string): string {
  return /^(t\d+) OK/m.exec(answer)?.[1] ?? `no OK in: ${answer}`;
}

function searched(answer: string): number[] {
  return (/^\* SEARCH([\d ]*)\r$/m.exec(answer)?.[1] ?? '').trim().split(' ').filter(Boolean).map(Number);
}

function message(pick: (n: number) => number): { subject: string; text: string } {
  const some = () => Array.from({ length: 1 + pick(2) }, () => words[pick(words.length)]).join(' ');
  return { subject: `Note ${some()}`, text: `Some words: ${some()}.` };
}

async function run(folder: string, seed: number, steps: number): Promise<void> {
  const pick = random(seed);
  const s = await c.session(folder);
  const full = await c.session(folder);
  const contexts = new ClientContexts();
  const tags = new Map<string, string>();
  for (const q of queries) {
    const answer = await s.run(`UID SEARCH RETURN (ALL UPDATE) ${q}`);
    tags.set(tagOf(answer), q);
    contexts.start(tagOf(answer), answer);
  }
  const sorted = await s.run(`UID SORT RETURN (ALL UPDATE) (SUBJECT) UTF-8 ${sortQuery}`);
  tags.set(tagOf(sorted), sortQuery);
  contexts.start(tagOf(sorted), sorted);
  const recent = await s.run(`UID SEARCH RETURN (ALL UPDATE) ${recentQuery}`);
  contexts.start(tagOf(recent), recent);

  const tick = () => c.h.bridge.pollers[0].tick();
  const uids = async () => searched(await full.run('UID SEARCH ALL'));
  const command = async (session: RawSession, line: string) => contexts.apply(await session.run(line));
  const vendorMessage = async () => {
    const listed = await vendorFolder(c.h.sandbox, folder);
    return listed.length ? listed[pick(listed.length)] : undefined;
  };
  // [name, weight, change]: new mail comes more often than messages leave, so the folder lives on
  const changes: Array<[string, number, () => Promise<void>]> = [
    [
      'STORE',
      3,
      async () => {
        const all = await uids();
        if (!all.length) return;
        const flag = ['\\Flagged', '\\Seen', 'Blue'][pick(3)];
        await command(s, `UID STORE ${all[pick(all.length)]} ${pick(2) ? '+' : '-'}FLAGS.SILENT (${flag})`);
      },
    ],
    [
      'flags at the vendor',
      2,
      async () => {
        const m = await vendorMessage();
        if (!m) return;
        await control(c.h.sandbox, 'POST', '/flags', {
          mailbox,
          message_uid: m.message_uid,
          is_read: pick(2) === 1,
          is_starred: pick(2) === 1,
        });
        await tick();
      },
    ],
    [
      'new mail',
      3,
      async () => {
        await control(c.h.sandbox, 'POST', '/inject', {
          mailbox,
          message: { from: 'news@example.org', to: mailbox, folder, is_read: pick(2) === 1, ...message(pick) },
        });
        await tick();
      },
    ],
    [
      'expunge',
      1,
      async () => {
        const all = await uids();
        if (!all.length) return;
        const uid = all[pick(all.length)];
        await command(s, `UID STORE ${uid} +FLAGS.SILENT (\\Deleted)`);
        await command(s, `UID EXPUNGE ${uid}`);
      },
    ],
    [
      'deleted at the vendor',
      1,
      async () => {
        const m = await vendorMessage();
        if (!m) return;
        await control(c.h.sandbox, 'POST', '/delete', { mailbox, message_uid: m.message_uid });
        await tick();
      },
    ],
  ];
  if (folder === 'Drafts')
    changes.push([
      'APPEND',
      2,
      async () => {
        const { subject, text } = message(pick);
        const flags = pick(2) ? '(\\Draft \\Flagged)' : '(\\Draft)';
        contexts.apply(await s.append(folder, `Subject: ${subject}\r\nFrom: me@example.org\r\n\r\n${text}\r\n`, flags));
      },
    ]);

  const weighted = changes.flatMap((entry) => Array.from({ length: entry[1] }, () => entry));
  const done: string[] = [];
  for (let step = 0; step < steps; step++) {
    const [name, , change] = weighted[pick(weighted.length)];
    done.push(name);
    await change();
    await command(s, 'NOOP');
    await full.run('NOOP');
    for (const [tag, q] of tags) {
      const expected = searched(await full.run(`UID SEARCH ${q}`));
      expect(
        [...(contexts.uids.get(tag) ?? [])].sort((a, b) => a - b),
        `${folder} seed ${seed}: ${q} after ${done.join(', ')}`,
      ).toEqual(expected);
    }
    const own = await s.run(`UID SEARCH ${recentQuery}`);
    contexts.apply(own);
    expect(
      [...(contexts.uids.get(tagOf(recent)) ?? [])].sort((a, b) => a - b),
      `${folder} seed ${seed}: ${recentQuery} after ${done.join(', ')}`,
    ).toEqual(searched(own));
  }
  expect(contexts.updates.ADDTO).toBeGreaterThan(0);
  expect(contexts.updates.REMOVEFROM).toBeGreaterThan(0);
  s.close();
  full.close();
}

test.each([1, 2, 3])('INBOX, seed %i: each context follows a full search after every change', async (seed) => {
  await run('INBOX', seed, 30);
});

test.each([4, 5])('Drafts, seed %i: each context follows a full search after every change', async (seed) => {
  await run('Drafts', seed, 25);
});
