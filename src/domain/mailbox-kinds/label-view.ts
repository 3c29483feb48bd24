import type { MessageRow } from '../../store';
import { type Appended, refuseAppend } from '../append';
import { ConnectorError, type Lane } from '../connector';
import { applyFlagUpdate, type FlagAction, type FlagUpdateResult } from '../flag-update';
import type { LabelFolders } from '../label-folders';
import { dropLabel, type LabelView, removeLabel } from '../labels';
import { type ImapFolder, labelViewOf } from '../mailbox-map';
import { type CopyOutcome, moveMessages, type MoveOutcome } from '../organize';
import { Refusal, requireVendorMessages } from '../refusal';
import type { SyncMode } from '../sync-context';
import type { SyncCause } from '../sync-observer';
import { type FolderStatus, type KindContext, listedStatus, type MailboxKind } from './kind';
import { copyVendorMessages } from './vendor-copy';

/**
 * A label view (labels.ts): synced by listing the label's messages, which a vendor may not
 * offer (A22); leaving it removes the label, so EXPUNGE unlabels and MOVE swaps or drops it.
 */
export class LabelViewKind implements MailboxKind {
  constructor(
    private readonly ctx: KindContext,
    private readonly labelFolders: LabelFolders,
  ) {}

  sync(folder: ImapFolder, mode: SyncMode | undefined, cause: SyncCause): Promise<void> {
    return this.ctx.syncs.sync(folder, mode, cause).catch((err) => refuseUnlistable(folder, err));
  }

  /** The vendor's folder list has no counts for labels: a view never listed is synced. */
  async status(folder: ImapFolder): Promise<FolderStatus> {
    const listed = listedStatus(this.ctx, folder);
    if (listed) return listed;
    await this.sync(folder, undefined, 'client');
    return this.ctx.localStatus(folder);
  }

  ready(folder: ImapFolder): Promise<void> {
    return this.ctx.syncs.ready(folder).catch((err) => refuseUnlistable(folder, err));
  }

  updateFlags(
    folder: ImapFolder,
    rows: MessageRow[],
    action: FlagAction,
    flags: string[],
    sessionId?: string,
  ): Promise<FlagUpdateResult> {
    return applyFlagUpdate({ ...this.ctx.sync, folder: folder.key }, rows, action, flags, sessionId);
  }

  /**
   * Into another label view the label is swapped; into a folder the message moves and loses
   * the label.
   */
  async move(from: ImapFolder, rows: MessageRow[], to: ImapFolder, sessionId?: string): Promise<MoveOutcome> {
    requireVendorMessages(rows, 'moved to vendor folders');
    const source = viewOf(from);
    if ('label' in to.scope) {
      const copied = await this.copy(from, rows, to);
      const moved = new Set(copied.sourceUids);
      const expunged = await removeLabel(
        this.ctx.sync,
        source,
        rows.filter((r) => moved.has(r.uid)),
        sessionId,
      );
      this.keepIfEmptied(source);
      return { ...copied, expunged };
    }
    const vendorFolder = to.scope.folder;
    const outcome = await this.ctx.syncs.exclusive(to.key, () =>
      moveMessages(this.ctx.sync, from.key, rows, vendorFolder, sessionId),
    );
    await this.dropLabelAfterMove(source, rows, new Set(outcome.sourceUids));
    this.keepIfEmptied(source);
    return outcome;
  }

  /** A label folder the client emptied stays until it is deleted, though the vendor no longer lists its label. */
  private keepIfEmptied(view: LabelView): void {
    const { store, account } = this.ctx.sync;
    if (!store.folderState(account, view.key).count) this.labelFolders.keep(view.label);
  }

  /** The move happened; a failure to drop the label only delays the view's update to the next poll. */
  private async dropLabelAfterMove(source: LabelView, rows: MessageRow[], moved: Set<number>): Promise<void> {
    const left = rows.filter((r) => moved.has(r.uid));
    if (!left.length) return;
    try {
      await dropLabel(this.ctx.sync, source, left);
    } catch (err) {
      this.ctx.sync.logger.warn(
        { account: this.ctx.sync.account, label: source.label, err: (err as Error).message },
        'moved out of a label view, but the label could not be removed',
      );
    }
  }

  copy(from: ImapFolder, rows: MessageRow[], to: ImapFolder): Promise<CopyOutcome> {
    return copyVendorMessages(this.ctx, from, rows, to);
  }

  /** EXPUNGE inside a view removes the label (the message stays in its folder). */
  async expunge(folder: ImapFolder, deleted: MessageRow[], sessionId?: string): Promise<number[]> {
    const view = viewOf(folder);
    const expunged = await removeLabel(this.ctx.sync, view, deleted, sessionId);
    this.keepIfEmptied(view);
    return expunged;
  }

  async append(folder: ImapFolder, _raw: Buffer, _flags: string[], _idate: Date): Promise<Appended> {
    return refuseAppend(folder.path);
  }

  refuseAppendHere(folder: ImapFolder): void {
    refuseAppend(folder.path);
  }

  /** A label spans folders, so the vendor searches everywhere. */
  searchText(_folder: ImapFolder, text: string, lane: Lane): Promise<string[] | null> {
    return this.ctx.sync.vendor.search(text, null, lane);
  }
}

/** The label a view shows; only label views are of this kind (MailboxMap). */
function viewOf(folder: ImapFolder): LabelView {
  const view = labelViewOf(folder);
  if (!view) throw new Error(`${folder.path} is not a label view`);
  return view;
}

function refuseUnlistable(folder: ImapFolder, err: unknown): never {
  throw err instanceof ConnectorError && (err.failure === 'refused' || err.failure === 'unsupported')
    ? new Refusal(
        'cannot',
        `The mail vendor cannot list messages by label (assumption A22), so ${folder.path} cannot be opened`,
      )
    : err;
}
