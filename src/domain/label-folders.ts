import type { LocalLabel, LocalState } from '../store';
import type { LabelChange } from './connector';
import { labelKey } from './label-key';
import { relabelledFlags } from './labels';
import type { MailMessage } from './message';
import { Refusal } from './refusal';
import { settleWrite } from './settled-write';
import type { SyncContext } from './sync-context';

/**
 * Label folders a client manages (RFC 3501 CREATE, RENAME, DELETE of `Labels/<name>`). The
 * vendor has no command for labels themselves: a label exists while a message carries it
 * (assumption A29). So:
 * - CREATE records the label here (durably, in the state store) until the vendor lists it,
 *   which it does once a COPY or MOVE gave a message the label; from then on it is the vendor's;
 * - RENAME gives every message carrying the old label the new one and takes the old one off,
 *   in one label command per 50 messages (A6), 20 commands a request; DELETE takes it off;
 * - a label only recorded here is renamed or deleted here.
 * A renamed label's folder starts a UID map of its own (a new UIDVALIDITY): its messages get
 * new UIDs there, so a client that kept the old folder's cache under the new name sees the new
 * UIDVALIDITY and reads the folder again, never a UID that now names another message.
 */

/** Ids one request carries: 20 commands of 50 ids (spec section 8, A6). A failure stops the walk between requests. */
const idsPerRequest = 20 * 50;

/** How a rename or a delete of one label ended: messages changed (null: unknown), and why it stopped early. */
interface Outcome {
  changed: number | null;
  stopped: unknown;
}

/** What a rename or a delete does to one label at the vendor, and how a message read back shows it was done. */
interface Relabel {
  verb: 'RENAME' | 'DELETE';
  label: string;
  change: LabelChange;
  applied: (m: MailMessage) => boolean;
  /** The label folder's path, for the client. */
  path: string;
}

export class LabelFolders {
  constructor(
    private readonly ctx: SyncContext,
    private readonly local: LocalState,
  ) {}

  recorded(): LocalLabel[] {
    return this.local.labels(this.ctx.account);
  }

  /**
   * After a new listing of the vendor's labels: a created label the vendor lists is the
   * vendor's now; a rename whose old label no message carries any more is complete.
   */
  reconcile(vendor: readonly string[]): void {
    const listed = new Set(vendor);
    for (const l of this.recorded()) {
      const done = l.renamedFrom === null ? listed.has(l.label) : !listed.has(l.renamedFrom);
      if (done) this.local.removeLabel(this.ctx.account, l.label);
    }
  }

  create(label: string): void {
    this.local.putLabel(this.ctx.account, label, null);
  }

  /** Whether `to` is where an earlier RENAME of `from` stopped half way: renaming again finishes it. */
  resumes(from: string, to: string): boolean {
    return this.recorded().some((l) => l.label === to && l.renamedFrom === from);
  }

  /**
   * RENAME of one label. `atVendor`: whether the vendor lists `from`. The rename is recorded
   * before the first write, so a stop at any point (a vendor failure, a crash) leaves what a
   * second RENAME completes, and removed once every message moved.
   */
  async rename(from: string, to: string, atVendor: boolean, path: string): Promise<void> {
    const account = this.ctx.account;
    if (!atVendor) {
      this.local.removeLabel(account, from);
      this.local.putLabel(account, to, null);
      return;
    }
    const resuming = this.resumes(from, to);
    this.local.putLabel(account, to, from);
    const { changed, stopped } = await this.relabel({
      verb: 'RENAME',
      label: from,
      change: { add: [to], remove: [from] },
      applied: (m) => m.labels.includes(to) && !m.labels.includes(from),
      path,
    });
    if (stopped) {
      // nothing moved, now or by an earlier attempt: nothing to finish
      if (changed === 0 && !resuming) this.local.removeLabel(account, to);
      throw stopped;
    }
    // a label listed but carried by no message (gone meanwhile) leaves an empty folder: kept here
    if (changed) this.local.removeLabel(account, to);
    else this.local.putLabel(account, to, null);
  }

  /** DELETE of one label: taken off every message at the vendor, or only forgotten here. */
  async delete(label: string, atVendor: boolean, path: string): Promise<void> {
    if (atVendor) {
      const { stopped } = await this.relabel({
        verb: 'DELETE',
        label,
        change: { remove: [label] },
        applied: (m) => !m.labels.includes(label),
        path,
      });
      if (stopped) throw stopped;
    }
    this.local.removeLabel(this.ctx.account, label);
  }

  /**
   * Applies the change to every message carrying the label (listed by label, A22), one request
   * at a time through the vendor's limits, and shows each request's outcome in the local state
   * at once. A lost answer is settled by reading the messages back; any failure stops the walk,
   * and the label is listed again to tell the client how many messages still carry it.
   */
  private async relabel(r: Relabel): Promise<Outcome> {
    let ids: string[];
    try {
      ids = await this.labelled(r.label);
    } catch (err) {
      return { changed: 0, stopped: err };
    }
    let changed = 0;
    for (let at = 0; at < ids.length; at += idsPerRequest) {
      const part = ids.slice(at, at + idsPerRequest);
      const settled = await settleWrite(
        this.ctx.vendor,
        part,
        () => this.ctx.vendor.label(part, r.change, 'write'),
        r.applied,
      ).catch((err: unknown) => ({ error: err, done: [] }));
      if (settled.error) return this.stopped(r, ids, part, settled.error);
      this.show(r, settled.done);
      changed += settled.done.length;
    }
    return { changed, stopped: null };
  }

  /** The outcome after a failed request, once the vendor's own listing says what is left. */
  private async stopped(r: Relabel, ids: string[], part: string[], error: unknown): Promise<Outcome> {
    const why = (error as Error)?.message ?? String(error);
    let left: Set<string>;
    try {
      left = new Set(await this.labelled(r.label));
    } catch {
      const unknown = `${r.verb} of ${r.path} stopped (${why}) and the mail vendor could not say how far it got; ${r.verb} again to finish`;
      return { changed: null, stopped: new Refusal('unavailable', unknown) };
    }
    // messages of the failed request the vendor did change (its answer for them was lost)
    this.show(
      r,
      part.filter((id) => !left.has(id)),
    );
    const changed = ids.filter((id) => !left.has(id)).length;
    const refusal = new Refusal(
      'unavailable',
      `${r.verb} of ${r.path} stopped (${why}): ${changed} of ${ids.length} messages are done, ${left.size} still carry the label; ${r.verb} again to finish`,
    );
    return { changed, stopped: refusal };
  }

  private async labelled(label: string): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await this.ctx.vendor.listMessages({ label }, cursor, 'write');
      ids.push(...page.ids);
      cursor = page.nextCursor;
    } while (cursor);
    return [...new Set(ids)];
  }

  /** The messages left the label's folder; their other rows show the label keywords as they are now. */
  private show(r: Relabel, messageUids: string[]): void {
    if (!messageUids.length) return;
    const flags = new Map<string, readonly string[]>();
    for (const { row } of this.ctx.store.rowsEverywhere(this.ctx.account, messageUids))
      if (!flags.has(row.messageUid)) flags.set(row.messageUid, relabelledFlags(row.flags, r.change));
    this.ctx.state.apply(
      { type: 'removed', folder: labelKey(r.label), messageUids },
      { type: 'spread', from: labelKey(r.label), flags },
    );
  }
}
