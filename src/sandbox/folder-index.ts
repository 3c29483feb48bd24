import type { StoredMessage } from './message';

/** Position of a message or thread in newest-first order; also the pagination cursor. */
export interface SortKey {
  t: number;
  s: number;
}

export const keyOf = (m: StoredMessage): SortKey => ({ t: m.receivedAt, s: m.seq });

/** Negative when a sorts before b in newest-first order. */
export function compareNewestFirst(a: SortKey, b: SortKey): number {
  return b.t - a.t || b.s - a.s;
}

export function encodeCursor(k: SortKey): string {
  return Buffer.from(`${k.t}.${k.s}`).toString('base64url');
}

export function decodeCursor(cursor: string): SortKey | null {
  const m = /^(-?\d+)\.(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString());
  return m ? { t: Number(m[1]), s: Number(m[2]) } : null;
}

export interface ThreadInFolder {
  threadId: string;
  /** The thread's messages in this folder, oldest first. */
  messages: StoredMessage[];
}

const oldestFirst = (a: StoredMessage, b: StoredMessage) => a.receivedAt - b.receivedAt || a.seq - b.seq;

/**
 * One folder's messages grouped by thread. The newest-first thread order is cached and only
 * rebuilt after a membership change, so paging through a large folder stays O(page).
 */
export class FolderIndex {
  private readonly threads = new Map<string, StoredMessage[]>();
  private order: ThreadInFolder[] | null = null;
  private size = 0;

  get total(): number {
    return this.size;
  }

  add(msg: StoredMessage): void {
    const list = this.threads.get(msg.threadId);
    if (!list) this.threads.set(msg.threadId, [msg]);
    else {
      list.push(msg);
      // arrivals are nearly always newest; keep the rare out-of-order insert correct
      if (list.length > 1 && oldestFirst(list[list.length - 2], msg) > 0) list.sort(oldestFirst);
    }
    this.size++;
    this.order = null;
  }

  remove(msg: StoredMessage): void {
    const list = this.threads.get(msg.threadId);
    const at = list ? list.indexOf(msg) : -1;
    if (!list || at < 0) return;
    list.splice(at, 1);
    if (list.length === 0) this.threads.delete(msg.threadId);
    this.size--;
    this.order = null;
  }

  *messages(): Iterable<StoredMessage> {
    for (const list of this.threads.values()) yield* list;
  }

  unread(): number {
    let n = 0;
    for (const m of this.messages()) if (!m.isRead) n++;
    return n;
  }

  /** Threads newest activity first. */
  sorted(): ThreadInFolder[] {
    if (!this.order) {
      this.order = [...this.threads].map(([threadId, messages]) => ({ threadId, messages }));
      this.order.sort((a, b) =>
        compareNewestFirst(keyOf(a.messages[a.messages.length - 1]), keyOf(b.messages[b.messages.length - 1])),
      );
    }
    return this.order;
  }

  /** Index of the first thread strictly after `cursor` in newest-first order. */
  startAfter(cursor: SortKey): number {
    const list = this.sorted();
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const last = list[mid].messages[list[mid].messages.length - 1];
      if (compareNewestFirst(keyOf(last), cursor) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
