import type { LocalLabel, LocalState } from '../store';
import { type ImapFolder, labelViewOf, type MailboxMap, mailboxAt } from './mailbox-map';
import { Refusal } from './refusal';
import { labelKey } from './label-key';
import { type Outcome, type Relabel, relabel } from './relabel';
import type { SyncContext } from './sync-context';

/**
 * Label folders a client manages (RFC 3501 CREATE, RENAME, DELETE of `Labels/<name>`). The
 * vendor has no command for labels themselves: a label exists while a message carries it
 * (assumption A29). So:
 * - CREATE records the label here (durably, in the state store) until the vendor lists it,
 *   which it does once a COPY or MOVE gave a message the label; from then on it is the vendor's,
 *   and recorded here again when a client empties it, so it stays until DELETE;
 * - RENAME gives every message carrying the old label the new one and takes the old one off
 *   (relabel.ts); DELETE takes it off; a label only recorded here is renamed or deleted here;
 * - every other folder (the vendor's, Quarantine, the labels root) is refused with the reason.
 * A folder that goes (DELETE, the old name of a RENAME) ends its UID map, and so does the name
 * a RENAME starts using: a name used again is another mailbox, numbered afresh under a greater
 * UIDVALIDITY (RFC 3501 2.3.1.1), so a client that kept a cache under the name reads the
 * folder again, never a UID that now names another message; a session that has it selected is
 * disconnected (change-journal.ts).
 */

export interface LabelFolderDeps {
  ctx: SyncContext;
  local: LocalState;
  map: MailboxMap;
  /** The mailboxes as a new vendor listing shows them, label folders only recorded here included. */
  freshList(): Promise<ImapFolder[]>;
  /** The labels the vendor listed last; null when it lists none (A21). */
  vendorLabels(): ReadonlySet<string> | null;
  /** Whether the vendor keeps listing a label no message carries (A29 the other way). */
  labelsKeptEmpty: boolean;
  /** Runs a write to a folder between its syncs (and other writes to it), not inside one. */
  exclusive<R>(key: string, fn: () => Promise<R>): Promise<R>;
}

export class LabelFolders {
  constructor(private readonly deps: LabelFolderDeps) {}

  private get account(): string {
    return this.deps.ctx.account;
  }

  recorded(): LocalLabel[] {
    return this.deps.local.labels(this.account);
  }

  /**
   * After a new listing of the vendor's labels: a created label the vendor lists is the
   * vendor's now; a rename whose old label no message carries any more is complete.
   */
  reconcile(vendor: readonly string[]): void {
    const listed = new Set(vendor);
    for (const l of this.recorded()) {
      const done = l.renamedFrom === null ? listed.has(l.label) : !listed.has(l.renamedFrom);
      if (done) this.deps.local.removeLabel(this.account, l.label);
    }
  }

  /** CREATE: only a label folder can be made. */
  async create(path: string): Promise<void> {
    const list = await this.deps.freshList();
    if (mailboxAt(list, path)) throw new Refusal('alreadyexists', `${path} already exists`);
    const label = this.deps.map.labelFor(path, list);
    if (!this.deps.vendorLabels())
      throw new Refusal(
        'cannot',
        'The mail vendor does not list labels (assumption A21), so no label folder can be kept',
      );
    this.deps.local.putLabel(this.account, label, null);
    this.deps.ctx.state.named({ path });
  }

  /**
   * A label folder a client emptied (EXPUNGE, MOVE out): kept here until DELETE, as any IMAP
   * folder is, while the vendor forgets a label no message carries.
   */
  keep(label: string): void {
    if (this.deps.vendorLabels() && !this.recorded().some((l) => l.label === label))
      this.deps.local.putLabel(this.account, label, null);
  }

  /** RENAME of a label folder and of the label folders below it (RFC 3501 6.3.5). */
  async rename(path: string, newPath: string): Promise<void> {
    const list = await this.deps.freshList();
    const from = this.managedLabel(list, path, 'renamed');
    const target = mailboxAt(list, newPath);
    const resumed = target && labelViewOf(target);
    if (target && !(resumed && this.resumes(from, resumed.label)))
      throw new Refusal('alreadyexists', `${target.path} already exists`);
    const to = this.deps.map.labelFor(newPath, list);
    if (to.startsWith(`${from}/`)) throw new Refusal('cannot', `${path} cannot be moved inside itself`);
    // label -> its folder's path, for every label folder shown
    const paths = new Map(
      list.flatMap((f) => {
        const view = labelViewOf(f);
        return view ? [[view.label, f.path] as const] : [];
      }),
    );
    const moves = [...paths.keys()]
      .filter((l) => l === from || l.startsWith(`${from}/`))
      .map((l) => ({ from: l, to: to + l.slice(from.length) }));
    const taken = moves.find((m) => paths.has(m.to) && !this.resumes(m.from, m.to));
    if (taken) throw new Refusal('alreadyexists', `${paths.get(taken.to)} already exists`);
    this.refuseKeptEmpty(
      moves.map((m) => m.from),
      'renamed',
    );
    for (const m of moves) await this.renameLabel(m.from, m.to, paths.get(m.from) ?? path);
    await this.deps.freshList();
    for (const m of moves) this.retire(m.from);
    for (const m of moves) {
      const oldPath = paths.get(m.from) ?? path;
      this.deps.ctx.state.named({ path: newPath + oldPath.slice(path.length), oldPath });
    }
  }

  /** DELETE of a label folder: the label comes off every message (which stay in their folders), then the folder goes. */
  async delete(path: string): Promise<void> {
    const label = this.managedLabel(await this.deps.freshList(), path, 'deleted');
    this.refuseKeptEmpty([label], 'deleted');
    if (this.vendorHas(label)) {
      const { stopped } = await this.relabel({
        verb: 'DELETE',
        label,
        change: { remove: [label] },
        applied: (m) => !m.labels.includes(label),
        path,
      });
      if (stopped) throw stopped;
    }
    this.deps.local.removeLabel(this.account, label);
    await this.deps.freshList();
    this.retire(label);
    this.deps.ctx.state.named({ path, deleted: true });
  }

  /**
   * The label's folder is gone, or its name starts afresh: its UID map ends, and the sessions
   * that have it selected are disconnected. Last thing a DELETE or RENAME does: the session
   * that made it hears its OK first (the journal's BYE waits for a later turn of the event loop).
   */
  private retire(label: string): void {
    this.deps.ctx.state.retire(labelKey(label));
  }

  /** Whether `to` is where an earlier RENAME of `from` stopped half way: renaming again finishes it. */
  private resumes(from: string, to: string): boolean {
    return this.recorded().some((l) => l.label === to && l.renamedFrom === from);
  }

  /**
   * RENAME of one label: moved at the vendor where the vendor lists it, here where only the
   * bridge has it. The rename is recorded before the first write, so a stop at any point (a
   * vendor failure, a crash) leaves what a second RENAME completes, and removed once every
   * message moved.
   */
  private async renameLabel(from: string, to: string, path: string): Promise<void> {
    const { local } = this.deps;
    if (!this.vendorHas(from)) {
      local.removeLabel(this.account, from);
      local.putLabel(this.account, to, null);
      this.retire(to);
      return;
    }
    const resuming = this.resumes(from, to);
    // the name starts afresh once, not again when a second RENAME finishes the first
    if (!resuming) this.retire(to);
    local.putLabel(this.account, to, from);
    const { changed, stopped } = await this.relabel({
      verb: 'RENAME',
      label: from,
      change: { add: [to], remove: [from] },
      applied: (m) => m.labels.includes(to) && !m.labels.includes(from),
      path,
    });
    if (stopped) {
      // nothing moved, now or by an earlier attempt: nothing to finish
      if (changed === 0 && !resuming) local.removeLabel(this.account, to);
      throw stopped;
    }
    // a label listed but carried by no message (gone meanwhile) leaves an empty folder: kept here
    if (changed) local.removeLabel(this.account, to);
    else local.putLabel(this.account, to, null);
  }

  /** The label's folder takes no COPY and no sync while its messages change. */
  private relabel(r: Relabel): Promise<Outcome> {
    return this.deps.exclusive(labelKey(r.label), () => relabel(this.deps.ctx, r));
  }

  private vendorHas(label: string): boolean {
    return this.deps.vendorLabels()?.has(label) ?? false;
  }

  /** A vendor that lists labels without messages would still list the old one: nothing the API can remove. */
  private refuseKeptEmpty(labels: string[], done: string): void {
    if (this.deps.labelsKeptEmpty && labels.some((l) => this.vendorHas(l)))
      throw new Refusal(
        'cannot',
        `The mail vendor keeps a label listed after its last message lost it, so a label cannot be ${done} through its API; do it in webmail`,
      );
  }

  /** The label of the label folder at `path`, or the refusal that says why that folder cannot be renamed or deleted. */
  private managedLabel(list: ImapFolder[], path: string, done: string): string {
    const folder = mailboxAt(list, path);
    const view = folder && labelViewOf(folder);
    if (view) return view.label;
    if (folder?.kind === 'quarantine')
      throw new Refusal('cannot', `${folder.path} shows the submissions the vendor held and cannot be ${done}`);
    if (folder)
      throw new Refusal(
        'cannot',
        `${folder.path} is a vendor folder, and the mail vendor API cannot rename or delete folders; only label folders can be ${done}`,
      );
    if (this.deps.map.isRoot(path) || list.some((f) => f.path.startsWith(`${path}/`)))
      throw new Refusal('cannot', `${path} only holds other folders and cannot be ${done}`);
    throw new Refusal('nonexistent', `There is no folder ${path}`);
  }
}
