import { expect, test } from 'vitest';
import { rawSession, type RawSession } from '../../support/raw-session';
import { appendToBoth, useServers, type Servers } from './harness';

/**
 * RFC 5267 4.3: SEARCH and SORT with RETURN (UPDATE) keep their result up to date with
 * unsolicited `ESEARCH (TAG "t") ADDTO/REMOVEFROM` as messages arrive, change flags (in this
 * session or another) or are expunged; NOUPDATE beyond the contexts kept; CANCELUPDATE. Each
 * exchange runs on Dovecot and on the bridge in Drafts, where both hold the same messages; the
 * ESEARCH and NO lines and the tagged status of every command are compared, and where order
 * matters (ADDTO after EXISTS, REMOVEFROM before EXPUNGE) it is asserted on both.
 */

const servers = useServers();

type Step = [who: 'a' | 'b', command: string];

/**
 * What of an answer these tests compare: ESEARCH, NO, EXPUNGE and EXISTS lines, and the
 * status; an EXISTS after an EXPUNGE, which the bridge sends and Dovecot does not (both
 * correct, RFC 3501 7.4.1), is left out.
 */
function essential(answer: string): string[] {
  const lines = answer.split('\r\n').filter((l) => /^(\* (ESEARCH|NO)\b|\* \d+ (EXPUNGE|EXISTS)$|[tX]\d+ )/.test(l));
  return lines
    .filter((l, i) => !(/EXISTS$/.test(l) && lines.slice(0, i).some((e) => /EXPUNGE$/.test(e))))
    .map((l) => l.replace(/^([tX]\d+ (?:OK|NO|BAD)).*/, '$1'));
}

/** Two sessions with Drafts selected run `steps` in order; the essential lines of each answer. */
async function run(server: Servers['bridge'], steps: readonly Step[]): Promise<string[][]> {
  const sessions: Record<'a' | 'b', RawSession> = {
    a: await rawSession(server.port, server.user, server.password),
    b: await rawSession(server.port, server.user, server.password),
  };
  try {
    for (const s of Object.values(sessions)) await s.run('SELECT Drafts');
    const answers: string[][] = [];
    for (const [who, command] of steps) answers.push(essential(await sessions[who].run(command)));
    return answers;
  } finally {
    for (const s of Object.values(sessions)) s.close();
  }
}

/** The steps' answers on Dovecot and on the bridge, labelled with their commands. */
async function both(steps: readonly Step[]) {
  const label = (answers: string[][]) => steps.map(([who, command], i) => ({ who, command, answer: answers[i] }));
  return {
    dovecot: label(await run(servers.current.dovecot, steps)),
    bridge: label(await run(servers.current.bridge, steps)),
  };
}

const message = (subject: string) =>
  [`From: Ann <ann@example.test>`, `Subject: ${subject}`, `Message-ID: <${subject}@example.test>`, '', 'text', ''].join(
    '\r\n',
  );

const arrived = message('ctxthree');

test('SEARCH RETURN (UPDATE): flags changed here and elsewhere, messages arriving and expunged', async () => {
  await appendToBoth(servers.current, message('ctxone'));
  await appendToBoth(servers.current, message('ctxtwo'));
  // session a's tags: t1 LOGIN, t2 SELECT, then t3... in the order of its steps
  const { dovecot, bridge } = await both([
    ['a', 'SEARCH RETURN (UPDATE) SUBJECT ctx SEEN'],
    ['a', 'SEARCH RETURN (UPDATE COUNT) SUBJECT ctx UNSEEN'],
    ['a', 'UID SEARCH RETURN (UPDATE ALL) SUBJECT ctx FLAGGED'],
    ['a', 'SEARCH RETURN (UPDATE MIN PARTIAL 1:1) SUBJECT ctx'],
    // this session's STORE: the updates come before its OK
    ['a', 'SEARCH RETURN (SAVE) SUBJECT ctxone'],
    ['a', 'STORE $ +FLAGS.SILENT (\\Seen)'],
    // another session's STORE: the updates come with the next command that may send them
    ['b', 'SEARCH RETURN (SAVE) SUBJECT ctxtwo'],
    ['b', 'STORE $ +FLAGS.SILENT (\\Flagged \\Seen)'],
    ['a', 'NOOP'],
    // a new message: ADDTO after its EXISTS
    ['b', `APPEND Drafts (\\Flagged) {${Buffer.byteLength(arrived)}+}\r\n${arrived}`],
    ['a', 'NOOP'],
    // expunged elsewhere: REMOVEFROM before the EXPUNGE, none while FETCH, STORE or SEARCH answer
    ['b', 'STORE $ +FLAGS.SILENT (\\Deleted)'],
    ['b', 'EXPUNGE'],
    ['a', 'FETCH 1 (UID)'],
    ['a', 'SEARCH SUBJECT ctx'],
    ['a', 'NOOP'],
    // expunged here: REMOVEFROM before this session's EXPUNGE
    ['a', 'STORE $ +FLAGS.SILENT (\\Deleted)'],
    ['a', 'EXPUNGE'],
    ['a', 'NOOP'],
  ]);
  expect(bridge).toEqual(dovecot);
  const after = (answer: string[], first: RegExp, then: RegExp) =>
    answer.findIndex((l) => first.test(l)) < answer.findIndex((l) => then.test(l));
  for (const answers of [dovecot, bridge]) {
    expect(answers[10].answer.some((l) => /ADDTO/.test(l))).toBe(true);
    expect(after(answers[10].answer, /EXISTS/, /ADDTO/)).toBe(true);
    expect(answers[15].answer.some((l) => /REMOVEFROM/.test(l))).toBe(true);
    expect(after(answers[15].answer, /REMOVEFROM/, /EXPUNGE/)).toBe(true);
    expect(after(answers[17].answer, /REMOVEFROM/, /EXPUNGE/)).toBe(true);
  }
});

test('NOUPDATE beyond ten contexts, a tag reused for UPDATE and UPDATE twice are refused as Dovecot refuses them', async () => {
  const steps: Step[] = [];
  for (let i = 0; i < 11; i++) steps.push(['a', 'SEARCH RETURN (UPDATE COUNT) SUBJECT ctx']);
  steps.push(['a', 'SEARCH RETURN (UPDATE UPDATE) ALL']);
  const { dovecot, bridge } = await both(steps);
  expect(bridge).toEqual(dovecot);
  expect(bridge[10].answer[0]).toMatch(/^\* NO \[NOUPDATE "t13"\]/);

  const reuse = async (server: Servers['bridge']) => {
    const s = await rawSession(server.port, server.user, server.password);
    await s.run('SELECT Drafts');
    const answers = [];
    for (const line of [
      'SEARCH RETURN (UPDATE) SEEN',
      'SORT RETURN (UPDATE) (DATE) UTF-8 SEEN',
      'SEARCH RETURN (COUNT) SEEN',
    ])
      answers.push(essential(await s.exchange(`X1 ${line}\r\n`, /^X1 (OK|NO|BAD).*\r\n/m)));
    s.close();
    return answers;
  };
  const reused = await reuse(servers.current.bridge);
  expect(reused).toEqual(await reuse(servers.current.dovecot));
  expect(reused.map((a) => /^X1 (\w+)/.exec(a.at(-1) ?? '')?.[1])).toEqual(['OK', 'BAD', 'OK']);
});

test('updates reach a session in IDLE', async () => {
  const watch = async (server: Servers['bridge']) => {
    const [a, b] = [
      await rawSession(server.port, server.user, server.password),
      await rawSession(server.port, server.user, server.password),
    ];
    for (const s of [a, b]) await s.run('SELECT Drafts');
    await a.run('UID SEARCH RETURN (UPDATE) SUBJECT ctx ANSWERED');
    await a.exchange('w1 IDLE\r\n', /^\+ .*\r\n/m);
    await b.run('UID STORE 1:* +FLAGS.SILENT (\\Answered)');
    const added = await a.waitFor(/^\* ESEARCH \(TAG "t3"\) UID ADDTO .*\r\n/m);
    await b.run('UID STORE 1:* -FLAGS.SILENT (\\Answered)');
    const removed = await a.waitFor(/^\* ESEARCH \(TAG "t3"\) UID REMOVEFROM .*\r\n/m);
    await a.exchange('DONE\r\n', /^w1 OK.*\r\n/m);
    for (const s of [a, b]) s.close();
    return [added, removed].map((t) => t.split('\r\n').filter((l) => l.startsWith('* ESEARCH')));
  };
  expect(await watch(servers.current.bridge)).toEqual(await watch(servers.current.dovecot));
});

test('CANCELUPDATE ends the updates of the contexts it names; unknown tags are NO, atoms BAD', async () => {
  const { dovecot, bridge } = await both([
    ['a', 'SEARCH RETURN (UPDATE) SUBJECT ctx DRAFT'],
    ['a', 'UID SEARCH RETURN (UPDATE) SUBJECT ctx DRAFT'],
    ['a', 'SORT RETURN (UPDATE) (ARRIVAL) UTF-8 SUBJECT ctx DRAFT'],
    ['a', 'CANCELUPDATE "t3" "t5"'],
    ['b', 'STORE 1:* +FLAGS.SILENT (\\Draft)'],
    ['a', 'NOOP'],
    ['a', 'CANCELUPDATE "t3"'],
    ['a', 'CANCELUPDATE "t4" "t4"'],
    ['a', 'CANCELUPDATE'],
    ['a', 'CANCELUPDATE t4'],
    ['a', 'CANCELUPDATE "nosuch"'],
    ['b', 'STORE 1:* -FLAGS.SILENT (\\Draft)'],
    ['a', 'NOOP'],
  ]);
  expect(bridge).toEqual(dovecot);
  // only the uncancelled context (t4) heard of the change, and none after its own cancel
  expect(bridge[5].answer.filter((l) => l.startsWith('* ESEARCH'))).toEqual([
    expect.stringMatching(/^\* ESEARCH \(TAG "t4"\) UID ADDTO /),
  ]);
  expect(bridge[12].answer.filter((l) => l.startsWith('* ESEARCH'))).toEqual([]);
});

test('a FETCH that sets \\Seen: Dovecot sends the ADDTO with the FETCH, the bridge with the next command (differs: FETCH sends no queued changes)', async () => {
  const { dovecot, bridge } = await both([
    ['a', 'SEARCH RETURN (UPDATE) SUBJECT ctxthree SEEN'],
    ['a', 'SEARCH RETURN (SAVE) SUBJECT ctxthree'],
    ['a', 'FETCH $ (BODY[])'],
    ['a', 'NOOP'],
    ['a', 'STORE $ -FLAGS.SILENT (\\Seen)'],
  ]);
  const added = /^\* ESEARCH \(TAG "t3"\) ADDTO \(0 \d+\)$/;
  expect(dovecot[2].answer.some((l) => added.test(l))).toBe(true);
  expect(bridge[2].answer.some((l) => added.test(l))).toBe(false);
  expect(bridge[3].answer.some((l) => added.test(l))).toBe(true);
  for (const answers of [dovecot, bridge])
    expect(answers[4].answer).toContainEqual(expect.stringMatching(/^\* ESEARCH \(TAG "t3"\) REMOVEFROM /));
});

/** A sequence set's numbers in its order ("5,3:1" is 5 3 2 1). */
function numbersOf(set: string): number[] {
  return set
    .split(',')
    .filter(Boolean)
    .flatMap((part) => {
      const [from, to = from] = part.split(':').map(Number);
      const step = to >= from ? 1 : -1;
      return Array.from({ length: Math.abs(to - from) + 1 }, (_, k) => from + k * step);
    });
}

/** A result kept as RFC 5267 4.3.3-4.3.4 tell a client: each (position set) pair in turn. */
function apply(result: number[], line: string): number[] {
  const out = result.slice();
  for (const [, name, pairs] of line.matchAll(/(ADDTO|REMOVEFROM) \(([^)]*)\)/g)) {
    const words = pairs.split(' ');
    for (let i = 0; i < words.length; i += 2) {
      const position = Number(words[i]);
      const numbers = numbersOf(words[i + 1]);
      expect(position).toBeGreaterThan(0);
      if (name === 'ADDTO') out.splice(position - 1, 0, ...numbers);
      else {
        expect(out.slice(position - 1, position - 1 + numbers.length)).toEqual(numbers);
        out.splice(position - 1, numbers.length);
      }
    }
  }
  return out;
}

const sorted = (answer: string) => numbersOf(/ALL ([\d:,]+)/.exec(answer)?.[1] ?? '');

// last: it changes Drafts on the bridge only
test('SORT RETURN (UPDATE): ADDTO and REMOVEFROM at positions in the sort order (CONTEXT=SORT; Dovecot, which does not offer it, gives 0)', async () => {
  const { port, user, password } = servers.current.bridge;
  const [a, b] = [await rawSession(port, user, password), await rawSession(port, user, password)];
  for (const s of [a, b]) await s.run('SELECT Drafts');
  const programs = ['(REVERSE ARRIVAL) UTF-8 UNSEEN', '(SUBJECT) UTF-8 UNSEEN', 'UID:(REVERSE SIZE) UTF-8 UNFLAGGED'];
  const kept: number[][] = [];
  for (const program of programs) {
    const [uid, rest] = program.startsWith('UID:') ? ['UID ', program.slice(4)] : ['', program];
    kept.push(sorted(await a.run(`${uid}SORT RETURN (UPDATE ALL) ${rest}`)));
  }
  const changes = [
    'STORE 1,3 +FLAGS.SILENT (\\Seen \\Flagged)',
    `APPEND Drafts () {${Buffer.byteLength(message('a-ctxsort'))}+}\r\n${message('a-ctxsort')}`,
    `APPEND Drafts () {${Buffer.byteLength(message('z-ctxsort'))}+}\r\n${message('z-ctxsort')}`,
    'STORE 1:4 -FLAGS.SILENT (\\Seen \\Flagged)',
    'STORE 2 +FLAGS.SILENT (\\Deleted)',
    'EXPUNGE',
  ];
  const updates: string[] = [];
  for (const change of changes) {
    await b.run(change);
    const answer = await a.run('NOOP');
    updates.push(...answer.split('\r\n').filter((l) => l.startsWith('* ESEARCH')));
    programs.forEach((program, i) => {
      for (const line of answer.split('\r\n')) {
        const expunged = Number(/^\* (\d+) EXPUNGE$/.exec(line)?.[1]);
        // sequence numbers above an expunged message's go down by one (RFC 3501 7.4.1)
        if (expunged && !program.startsWith('UID:')) kept[i] = kept[i].map((n) => (n > expunged ? n - 1 : n));
        if (line.startsWith(`* ESEARCH (TAG "t${i + 3}")`)) kept[i] = apply(kept[i], line);
      }
    });
  }
  // insertions and removals away from the start of the results, not only at 1
  expect(updates.some((l) => /ADDTO \((\d+ \S+ )*([2-9]|\d\d)/.test(l))).toBe(true);
  expect(updates.some((l) => /REMOVEFROM \((\d+ \S+ )*([2-9]|\d\d)/.test(l))).toBe(true);
  for (const [i, program] of programs.entries()) {
    const [uid, rest] = program.startsWith('UID:') ? ['UID ', program.slice(4)] : ['', program];
    expect(kept[i]).toEqual(sorted(await a.run(`${uid}SORT RETURN (ALL) ${rest}`)));
  }
  for (const s of [a, b]) s.close();

  // Dovecot tracks a SORT's result as a SEARCH's, at position 0
  const d = servers.current.dovecot;
  const [c, e] = [await rawSession(d.port, d.user, d.password), await rawSession(d.port, d.user, d.password)];
  for (const s of [c, e]) await s.run('SELECT Drafts');
  await c.run('SORT RETURN (UPDATE) (REVERSE ARRIVAL) UTF-8 FLAGGED');
  await e.run('STORE 1:2 +FLAGS.SILENT (\\Flagged)');
  expect(await c.run('NOOP')).toMatch(/^\* ESEARCH \(TAG "t3"\) ADDTO \(0 1:2\)/m);
  await e.run('STORE 1:2 -FLAGS.SILENT (\\Flagged)');
  for (const s of [c, e]) s.close();
});
