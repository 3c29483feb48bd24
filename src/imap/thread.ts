import type { BaseSubject } from '../mime/base-subject';
import type { OrderingKeys } from './ordering-keys';
import type { Sortable } from './sort';

/**
 * THREAD=ORDEREDSUBJECT and THREAD=REFERENCES (RFC 5256 section 3) on the keys stored with
 * each message (./ordering-keys.ts).
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
    // nothing is below a leaf: a long References list links fresh leaves without walking up
    // the chain above each one (that walk made it quadratic)
    if (!this.children.length) return other === this;
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
    let c: Container | undefined = this;
    while (c && !c.item) c = c.children[0];
    return c?.item ?? null;
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
 * Every container below the roots (roots included), each after all those below it: a reply
 * chain is as deep as anyone who can send mail makes it, so the tree is walked with a stack of
 * its own, not by recursion (a chain 10,000 deep overflowed the call stack).
 */
function bottomUp(roots: readonly Container[]): Container[] {
  const order: Container[] = [];
  const stack = roots.slice();
  for (let c = stack.pop(); c; c = stack.pop()) {
    order.push(c);
    for (const child of c.children) stack.push(child);
  }
  return order.reverse();
}

/**
 * Step (3) on one set of siblings whose own children are pruned: dummies without children
 * deleted, dummies with children replaced by them, except a dummy among the roots with more
 * than one child.
 */
function pruned(siblings: readonly Container[], root: boolean): Container[] {
  const out: Container[] = [];
  for (const c of siblings) {
    if (c.item || (root && c.children.length > 1)) out.push(c);
    else for (const child of c.children) out.push(child);
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

/**
 * Steps (3) and (4): the tree pruned and every set of siblings sorted, those below them first
 * (a dummy is sorted by its first child); the roots left.
 */
function pruneAndSort(roots: readonly Container[]): Container[] {
  for (const c of bottomUp(roots)) {
    c.children = pruned(c.children, false);
    for (const child of c.children) child.parent = c;
    sortSiblings(c.children);
  }
  const threads = pruned(roots, true);
  for (const c of threads) c.parent = null;
  sortSiblings(threads);
  return threads;
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
      for (const child of c.children) {
        child.parent = held;
        held.children.push(child);
      }
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

/** The answer's nodes, built top down with a stack of those whose children are still to come. */
function toNodes(roots: readonly Container[]): ThreadNode[] {
  const pending: Array<[Container, ThreadNode]> = [];
  const nodes = (containers: readonly Container[]) =>
    containers.map((c) => {
      const node: ThreadNode = { uid: c.item?.uid ?? null, children: [] };
      pending.push([c, node]);
      return node;
    });
  const forest = nodes(roots);
  for (let next = pending.pop(); next; next = pending.pop()) next[1].children = nodes(next[0].children);
  return forest;
}

/** REFERENCES: threads from the messages' references, then merged by base subject. */
export function referencesThreads(messages: readonly Sortable[]): ThreadNode[] {
  // (4) the roots by sent date, as the subject table is filled in that order
  const roots = pruneAndSort(link(items(messages)));
  const { threads, grown } = mergeBySubject(roots);
  // (6) only the sets the merge changed: those that got children (a dummy's first child is
  // its date), then the roots
  for (const c of grown) sortSiblings(c.children);
  sortSiblings(threads);
  return toNodes(threads);
}
