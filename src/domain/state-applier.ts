import type { MailState } from '../store';
import type { FolderChange, MailboxNameChange } from './changes';
import { isLocalFlag, labelToKeyword } from './flags';
import { labelOfKey } from './label-key';
import type { FlagsSet, MessageFlagsSpread, MessagesAdded, MessagesRemoved, StateUpdate } from './state-updates';

/** What one apply() changed, folder by folder, in MODSEQ order. */
export class AppliedChanges {
  readonly byFolder = new Map<string, FolderChange[]>();

  push(folder: string, changes: FolderChange[]): void {
    if (!changes.length) return;
    const list = this.byFolder.get(folder);
    if (list) list.push(...changes);
    else this.byFolder.set(folder, [...changes]);
  }

  of(folder: string, command?: FolderChange['command']): FolderChange[] {
    const list = this.byFolder.get(folder) ?? [];
    return command ? list.filter((c) => c.command === command) : list;
  }
}

/**
 * The one writer of an account's IMAP state. Every update is applied in a single transaction
 * that gives out UIDs and MODSEQs, and its changes are journaled once that transaction is
 * durable, in commit order: so a folder's journal is always in MODSEQ order, a session that
 * has seen MODSEQ n has seen every change up to n, and no session hears of a change a crash
 * could still lose.
 */
export class StateApplier {
  constructor(
    private readonly store: MailState,
    private readonly account: string,
    private readonly journal: {
      publish(folder: string, changes: FolderChange[]): void;
      retired(folder: string): void;
      named(change: MailboxNameChange): void;
    },
  ) {}

  apply(...updates: StateUpdate[]): AppliedChanges {
    const applied = new AppliedChanges();
    const journal = new AppliedChanges();
    this.store.atomically(() => {
      for (const u of updates) {
        if (u.type === 'added') this.add(u, applied, journal);
        else if (u.type === 'flags') this.setFlags(u, applied, journal);
        else if (u.type === 'spread') this.spread(u, applied, journal);
        else this.remove(u, applied, journal);
      }
    });
    this.store.afterCommit(() => {
      for (const [folder, changes] of journal.byFolder) this.journal.publish(folder, changes);
    });
    return applied;
  }

  /**
   * The folder's UID map ends (a label folder deleted, renamed away or onto): the name is
   * numbered afresh, and the sessions that selected the folder are told once that is durable.
   */
  retire(folder: string): void {
    this.store.retireFolder(this.account, folder);
    this.store.afterCommit(() => this.journal.retired(folder));
  }

  /** A client created, deleted or renamed a mailbox: told once what it wrote is durable. */
  named(change: MailboxNameChange): void {
    this.store.afterCommit(() => this.journal.named(change));
  }

  private record(
    applied: AppliedChanges,
    journal: AppliedChanges,
    folder: string,
    changes: FolderChange[],
    announce = true,
  ): void {
    applied.push(folder, changes);
    if (announce) journal.push(folder, changes);
  }

  private add(u: MessagesAdded, applied: AppliedChanges, journal: AppliedChanges): void {
    const assigned = this.store.assignUids(this.account, u.folder, u.messages);
    const changes = assigned.map((a): FolderChange => ({ command: 'EXISTS', uid: a.uid, modseq: a.modseq }));
    this.record(applied, journal, u.folder, withCause(changes, u.cause), u.announce);
  }

  private setFlags(u: FlagsSet, applied: AppliedChanges, journal: AppliedChanges): void {
    const changes: FolderChange[] = [];
    for (const row of u.rows) {
      const modseq = this.store.setFlags(this.account, u.folder, row.uid, row.flags);
      changes.push({ command: 'FETCH', uid: row.uid, flags: [...row.flags], modseq });
    }
    this.record(applied, journal, u.folder, withCause(changes, u.cause));
  }

  private remove(u: MessagesRemoved, applied: AppliedChanges, journal: AppliedChanges): void {
    const removed = this.store.expunge(this.account, u.folder, u.messageUids);
    const changes = removed.map((r): FolderChange => ({ command: 'EXPUNGE', uid: r.uid, modseq: r.modseq }));
    this.record(applied, journal, u.folder, withCause(changes, u.cause));
  }

  private spread(u: MessageFlagsSpread, applied: AppliedChanges, journal: AppliedChanges): void {
    if (!u.flags.size) return;
    const setIn = new Map<string, Array<{ uid: number; flags: readonly string[] }>>();
    const leave = new Map<string, string[]>();
    for (const { folder, row } of this.store.rowsEverywhere(this.account, [...u.flags.keys()])) {
      if (folder === u.from) continue;
      const shared = (u.flags.get(row.messageUid) ?? []).filter((f) => !isLocalFlag(f));
      const label = labelOfKey(folder);
      const kw = label === null ? null : labelToKeyword(label);
      if (kw && !shared.some((f) => f.toLowerCase() === kw.toLowerCase())) {
        leave.set(folder, [...(leave.get(folder) ?? []), row.messageUid]);
        continue;
      }
      const flags = [...shared, ...row.flags.filter(isLocalFlag)];
      if (sameFlags(flags, row.flags)) continue;
      setIn.set(folder, [...(setIn.get(folder) ?? []), { uid: row.uid, flags }]);
    }
    for (const [folder, rows] of setIn) this.setFlags({ type: 'flags', folder, rows }, applied, journal);
    for (const [folder, messageUids] of leave) this.remove({ type: 'removed', folder, messageUids }, applied, journal);
    for (const added of this.labelJoins(u)) this.add(added, applied, journal);
  }

  /**
   * Label views are derived from the messages' label keywords: a message that gains label L's
   * keyword joins the view of L (when that view is kept), as it leaves it when it loses it.
   */
  private labelJoins(u: MessageFlagsSpread): MessagesAdded[] {
    const views = this.store.listedFolders(this.account).flatMap((key) => {
      const label = labelOfKey(key);
      const keyword = label === null ? null : labelToKeyword(label);
      return keyword ? [{ key, keyword: keyword.toLowerCase() }] : [];
    });
    if (!views.length) return [];
    const rows = this.store.rowsEverywhere(this.account, [...u.flags.keys()]);
    const joins = new Map<string, MessagesAdded>();
    for (const [messageUid, flags] of u.flags) {
      const mine = rows.filter((r) => r.row.messageUid === messageUid);
      const any = mine[0]?.row;
      if (!any) continue;
      const shared = flags.filter((f) => !isLocalFlag(f));
      for (const view of views) {
        if (!shared.some((f) => f.toLowerCase() === view.keyword) || mine.some((r) => r.folder === view.key)) continue;
        const join = joins.get(view.key) ?? { type: 'added', folder: view.key, messages: [], announce: true };
        join.messages.push({ messageUid, flags: shared, idate: new Date(any.idate) });
        joins.set(view.key, join);
      }
    }
    return [...joins.values()];
  }
}

function withCause(changes: FolderChange[], cause: string | undefined): FolderChange[] {
  return cause ? changes.map((c) => ({ ...c, ignore: cause })) : changes;
}

export function sameFlags(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((f) => b.includes(f));
}
