import type { BaseSubject } from './base-subject';
import type { OrderingKeys } from './ordering-keys';
import type { Sortable } from './sort';

/**
 * THREAD=ORDEREDSUBJECT and THREAD=REFERENCES (RFC 5256 section 3) on the keys of the store's
 * header lines (./ordering-keys.ts).
 * The answer is a forest: a node is a message (its UID) or, in REFERENCES, a dummy standing for
 * a message that is referenced but not among the searched ones (uid null).
 */

export interface ThreadNode {
  uid: number | null;
  children: ThreadNode[];
}

/** A searched message with what both algorithms order and group it by. */
interface Item {
  uid: number;
  /** Mailbox order: breaks ties of the sent date. */
  position: number;
  date: number;
  subject: BaseSubject;
  keys: OrderingKeys;
}

function items(messages: readonly Sortable[]): Item[] {
  return messages.map((m, position) => ({
    uid: m.uid,
    position,
    date: m.keys.sentDate(m.idate),
    subject: m.keys.subject,
    keys: m.keys,
  }));
}

const bySentDate = (a: Item, b: Item) => a.date - b.date || a.position - b.position;

/**
 * ORDEREDSUBJECT: the messages grouped by base subject; a thread is its first message (by sent
 * date) with every other one as its child, and threads follow the sent date of their first.
 */
export function orderedSubjectThreads(messages: readonly Sortable[]): ThreadNode[] {
  const groups = new Map<string, Item[]>();
  for (const item of items(messages)) {
    const group = groups.get(item.subject.base);
    if (group) group.push(item);
    else groups.set(item.subject.base, [item]);
  }
  const threads = [...groups.values()].map((group) => group.sort(bySentDate));
  threads.sort((a, b) => bySentDate(a[0], b[0]));
  return threads.map(([first, ...rest]) => ({
    uid: first.uid,
    children: rest.map((m) => ({ uid: m.uid, children: [] })),
  }));
}

/** A node while threading: its message (none for a dummy), parent and children. */
class Container {
  parent: Container | null = null;
  children: Container[] = [];
  constructor(public item: Item | null) {}

  /** Whether `other` is this container or below it. */
  reaches(other: Container): boolean {
    for (let c: Container | null = other; c; c = c.parent) if (c === this) return true;
    return false;
  }

  /** Makes this a child of `parent`, unless that would make a loop. */
  linkTo(parent: Container): void {
    if (this.reaches(parent)) return;
    this.unlink();
    this.parent = parent;
    parent.children.push(this);
  }

  unlink(): void {
    if (!this.parent) return;
    this.parent.children.splice(this.parent.children.indexOf(this), 1);
    this.parent = null;
  }

  /** The message a thread is known by: its own, or for a dummy its first child's. */
  get representative(): Item | null {
    return this.item ?? this.children[0]?.representative ?? null;
  }
}

/** Steps (1) and (2): containers linked by Message-ID, References and In-Reply-To; the roots. */
function link(all: readonly Item[]): Container[] {
  const byId = new Map<string, Container>();
  const containers: Container[] = [];
  const of = (id: string) => {
    let c = byId.get(id);
    if (!c) {
      c = new Container(null);
      byId.set(id, c);
      containers.push(c);
    }
    return c;
  };
  for (const item of all) {
    // (A) the message's container; without a Message-ID, or with one already taken, one of its own
    const id = item.keys.messageId;
    let own = id === undefined ? undefined : of(id);
    if (!own || own.item) {
      own = new Container(null);
      containers.push(own);
    }
    own.item = item;
    // (B) the references linked in their order, where not linked already
    let parent: Container | undefined;
    for (const reference of item.keys.references) {
      const c = of(reference);
      if (parent && !c.parent) c.linkTo(parent);
      parent = c;
    }
    // (C) the message's own parent is the last reference, replacing any other
    own.unlink();
    if (parent) own.linkTo(parent);
  }
  return containers.filter((c) => !c.parent);
}

/**
 * Step (3): dummies without children deleted, dummies with children replaced by them, except a
 * dummy among the roots with more than one child.
 */
function prune(siblings: Container[], root: boolean): Container[] {
  if (!siblings.length) return siblings;
  const out: Container[] = [];
  for (const c of siblings) {
    c.children = prune(c.children, false);
    for (const child of c.children) child.parent = c;
    if (c.item || (root && c.children.length > 1)) out.push(c);
    else out.push(...c.children);
  }
  return out;
}

/** Siblings by sent date, a dummy by its first child's (whose siblings are in order already). */
function sortSiblings(siblings: Container[]): void {
  if (siblings.length < 2) return;
  // each one's representative found once, not in every comparison
  const keyed = siblings.map((c) => ({ c, by: c.representative! }));
  keyed.sort((a, b) => bySentDate(a.by, b.by));
  keyed.forEach((k, i) => {
    siblings[i] = k.c;
  });
}

/** Step (6): every set of siblings in order, those below them first. */
function sortTree(siblings: Container[]): void {
  for (const c of siblings) sortTree(c.children);
  sortSiblings(siblings);
}

/**
 * Step (5): threads among the roots with the same base subject merged; the roots left, and
 * the containers that got children (all else stays as it was).
 */
function mergeBySubject(roots: Container[]): { threads: Container[]; grown: Set<Container> } {
  const subjectOf = (c: Container) => c.representative!.subject.base;
  const isDummy = (c: Container) => c.item === null;
  const replyOrForward = (c: Container) => c.item?.subject.replyOrForward === true;
  // (B) one thread per subject: a dummy rather than a message, an original rather than a reply
  const table = new Map<string, Container>();
  for (const c of roots) {
    const subject = subjectOf(c);
    if (!subject) continue;
    const held = table.get(subject);
    if (!held || (!isDummy(held) && (isDummy(c) || (replyOrForward(held) && !replyOrForward(c)))))
      table.set(subject, c);
  }
  // (C) every other thread with that subject joins it
  const merged = new Set<Container>();
  const replaced = new Map<Container, Container>();
  const grown = new Set<Container>();
  for (const c of roots) {
    const subject = subjectOf(c);
    const held = table.get(subject);
    if (!subject || !held || held === c) continue;
    merged.add(c);
    if (isDummy(held) && isDummy(c)) {
      for (const child of c.children) child.parent = held;
      held.children.push(...c.children);
      grown.add(held);
    } else if (isDummy(held) || (replyOrForward(c) && !replyOrForward(held))) {
      c.parent = held;
      held.children.push(c);
      grown.add(held);
    } else {
      const dummy = new Container(null);
      dummy.children = [held, c];
      held.parent = dummy;
      c.parent = dummy;
      // held is a message among the roots here: a dummy in the table takes the branches above
      replaced.set(held, dummy);
      table.set(subject, dummy);
      grown.add(dummy);
    }
  }
  return { threads: roots.filter((c) => !merged.has(c)).map((c) => replaced.get(c) ?? c), grown };
}

function toNodes(containers: readonly Container[]): ThreadNode[] {
  return containers.map((c) => ({ uid: c.item?.uid ?? null, children: toNodes(c.children) }));
}

/** REFERENCES: threads from the messages' references, then merged by base subject. */
export function referencesThreads(messages: readonly Sortable[]): ThreadNode[] {
  const roots = prune(link(items(messages)), true);
  for (const c of roots) c.parent = null;
  // (4) the roots by sent date, as the subject table is filled in that order
  sortTree(roots);
  const { threads, grown } = mergeBySubject(roots);
  // (6) only the sets the merge changed: those that got children (a dummy's first child is
  // its date), then the roots
  for (const c of grown) sortSiblings(c.children);
  sortSiblings(threads);
  return toNodes(threads);
}
