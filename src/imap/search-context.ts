import type { AccountView } from '../domain/account-view';
import type { ImapFolder } from '../domain/mailbox-map';
import type { MessageRow } from '../store';
import { resolveObjectIdTerms } from './object-ids';
import { rowOnlyTest, rowTests, type RowTest } from './row-tests';
import { orBranches, type SearchTerm } from './search';

/**
 * A search context (RFC 5267 4.3, SEARCH or SORT with RETURN (UPDATE)) evaluated again after
 * each change of the mailbox, incrementally. A UID's message never changes, so what every term
 * other than a flag or MODSEQ term (BODY, TEXT, HEADER, SUBJECT, FROM, ..., sizes, dates,
 * UID sets, EMAILID, THREADID) says of it is learnt once and kept with the context: a change
 * of flags re-evaluates the flag terms of the messages whose MODSEQ moved, with no read of a
 * message and no vendor request; new messages are read for the other terms, on the bridge's
 * copy while they are few; expunged ones just leave. The answer is the full evaluation's.
 */

/** Terms whose answer for a UID follows its flags; every other term's is fixed. */
const changingKeys = new Set(['flag', 'modseq']);

function isFixed(t: SearchTerm): boolean {
  if (t.key === 'not') return isFixed(t.value as SearchTerm);
  if (t.key === 'or') return orBranches(t).every((branch) => branch.every(isFixed));
  return !changingKeys.has(t.key);
}

/** A part of the query with each group of fixed terms replaced by the UIDs it holds for. */
type WithHeld<T> = (held: readonly ReadonlySet<number>[]) => T;

/**
 * The query's fixed terms in groups, one per AND list (the query's, an OR branch's) holding
 * any, and the query with each group standing for the UIDs it holds for (a UID set term), so
 * that only flag and MODSEQ terms are left to evaluate: an AND of terms is the same in any order.
 */
function shapeOf(query: readonly SearchTerm[]): { groups: SearchTerm[][]; withHeld: WithHeld<SearchTerm[]> } {
  const groups: SearchTerm[][] = [];
  const andList = (terms: readonly SearchTerm[]): WithHeld<SearchTerm[]> => {
    const fixed = terms.filter(isFixed);
    const at = fixed.length ? groups.push(fixed) - 1 : -1;
    const rest = terms.filter((t) => !isFixed(t)).map(term);
    return (held) => [...(at < 0 ? [] : [{ key: 'uid', value: held[at] }]), ...rest.map((r) => r(held))];
  };
  const term = (t: SearchTerm): WithHeld<SearchTerm> => {
    if (t.key === 'not') {
      const inner = term(t.value as SearchTerm);
      return (held) => ({ ...t, value: inner(held) });
    }
    if (t.key === 'or') {
      const branches = orBranches(t).map(andList);
      return (held) => ({ ...t, value: branches.map((b) => b(held)) });
    }
    return () => t;
  };
  return { groups, withHeld: andList(query) };
}

/**
 * New messages up to this many are checked on the bridge's copy for BODY and TEXT terms; more
 * (a folder filled by a first sync, a large COPY) go to the vendor's search first, as a
 * command does, in the poll lane: nobody waits for an update as for a command's answer.
 */
const localCheckLimit = 50;

/** What a context learnt: the fixed groups' answers per UID, and the last evaluation's result. */
class ContextState {
  readonly groups: SearchTerm[][];
  readonly withHeld: WithHeld<SearchTerm[]>;
  /**
   * The last evaluation's rows, in UID order (null before the first, the command's own): what
   * the groups' answers were learnt of. The store's row objects, so keeping them costs a
   * reference each.
   */
  rows: readonly MessageRow[] | null = null;
  /** Per group, the UIDs of `rows` it holds for. */
  readonly held: Set<number>[];
  /** The highest MODSEQ of `rows`, and the UIDs of those matched. */
  modseq = 0;
  matched = new Set<number>();
  /** Evaluations run one after another, each from the state the one before left. */
  queue: Promise<unknown> = Promise.resolve();

  constructor(query: readonly SearchTerm[]) {
    ({ groups: this.groups, withHeld: this.withHeld } = shapeOf(query));
    this.held = this.groups.map(() => new Set());
  }
}

/**
 * What `rows` holds that `before` did not (a new UID, or a message described again, of
 * another size, learnt again) and the UIDs of `before` it no longer holds; both in UID order.
 */
function difference(
  before: readonly MessageRow[],
  rows: readonly MessageRow[],
): { fresh: MessageRow[]; gone: number[] } {
  const fresh: MessageRow[] = [];
  const gone: number[] = [];
  let j = 0;
  for (const row of rows) {
    while (j < before.length && before[j].uid < row.uid) gone.push(before[j++].uid);
    const old = j < before.length && before[j].uid === row.uid ? before[j++] : undefined;
    if (!old || old.messageUid !== row.messageUid || old.size !== row.size) fresh.push(row);
  }
  while (j < before.length) gone.push(before[j++].uid);
  return { fresh, gone };
}

/** The engine's context object (imap-core 121) to what the context learnt: it goes with the context. */
const states = new WeakMap<object, ContextState>();

/** The fixed groups' answers for `rows`: per group, the UIDs of those it holds for. */
async function learn(
  view: AccountView,
  folder: ImapFolder,
  state: ContextState,
  rows: readonly MessageRow[],
  first: boolean,
): Promise<Set<number>[]> {
  if (!rows.length || !state.groups.length) return state.groups.map(() => new Set());
  const groups: SearchTerm[][] = [];
  for (const group of state.groups) groups.push(await resolveObjectIdTerms(view, group, rows));
  // the command's own evaluation is what a client waits for; an update's is background work
  const vendorLane = first ? 'content' : rows.length > localCheckLimit ? 'poll' : null;
  const tests = await rowTests(view, folder, groups.flat(), rows, new Set(), vendorLane);
  return groups.map((group) => {
    const test = tests(group);
    return new Set(rows.filter(test).map((r) => r.uid));
  });
}

async function evaluate(
  view: AccountView,
  folder: ImapFolder,
  state: ContextState,
  rows: readonly MessageRow[],
  recent: ReadonlySet<number>,
): Promise<MessageRow[]> {
  const { fresh, gone } = difference(state.rows ?? [], rows);
  const learnt = await learn(view, folder, state, fresh, state.rows === null);
  // expunged messages leave what was learnt
  for (const held of state.held) for (const uid of gone) held.delete(uid);
  for (const row of fresh)
    state.held.forEach((held, i) => {
      if (learnt[i].has(row.uid)) held.add(row.uid);
      else held.delete(row.uid);
    });
  // a UID whose flags changed since (its MODSEQ moved) or that is new is evaluated, the rest
  // keep their answer: \Recent, a flag of the session's, is settled for a UID once the session
  // saw it (recent.ts claims it, if at all, before the rows are read)
  const freshUids = new Set(fresh.map((r) => r.uid));
  let test: RowTest | undefined;
  const evaluated = (row: MessageRow): boolean => {
    test ??= rowOnlyTest(state.withHeld(state.held), recent);
    return test(row);
  };
  const matched: MessageRow[] = [];
  let modseq = 0;
  for (const row of rows) {
    const again = row.modseq > state.modseq || freshUids.has(row.uid);
    if (again ? evaluated(row) : state.matched.has(row.uid)) matched.push(row);
    modseq = Math.max(modseq, row.modseq);
  }
  state.rows = rows;
  state.modseq = modseq;
  state.matched = new Set(matched.map((r) => r.uid));
  return matched;
}

/**
 * The rows of `rows` (the session's view, in UID order) that the context's query matches,
 * evaluated from what the context learnt before. `context` is the engine's object for the
 * context (the same at every evaluation), `query` its fixed query.
 */
export function contextMatches(
  view: AccountView,
  folder: ImapFolder,
  query: readonly SearchTerm[],
  rows: readonly MessageRow[],
  recent: ReadonlySet<number>,
  context: object,
): Promise<MessageRow[]> {
  const target = states.get(context) ?? new ContextState(query);
  states.set(context, target);
  const run = target.queue.then(() => evaluate(view, folder, target, rows, recent));
  target.queue = run.catch(() => undefined);
  return run;
}
