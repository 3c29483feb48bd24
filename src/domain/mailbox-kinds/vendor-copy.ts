import type { MessageRow } from '../../store';
import { addLabel } from '../labels';
import type { ImapFolder } from '../mailbox-map';
import { copyByMoving, type CopyOutcome } from '../organize';
import { Refusal, requireVendorMessages } from '../refusal';
import type { KindContext } from './kind';

/**
 * COPY of vendor messages (out of a folder or a label view). Into a label view it adds the
 * label. A vendor message lives in one folder (A7), so COPY to a folder is refused, or with
 * copyToFolder "move" done as a move (see copyByMoving).
 */
export async function copyVendorMessages(
  ctx: KindContext,
  from: ImapFolder,
  rows: MessageRow[],
  to: ImapFolder,
): Promise<CopyOutcome> {
  if ('label' in to.scope) {
    const target = { key: to.key, label: to.scope.label };
    return ctx.syncs.exclusive(to.key, () => addLabel(ctx.sync, from.key, rows, target));
  }
  if (ctx.copyToFolder === 'refuse') {
    throw new Refusal(
      'cannot',
      'The mail vendor keeps each message in one folder, so it cannot be copied; use MOVE (drag without Ctrl), or COPY to a Labels/ folder to label it',
    );
  }
  const vendorFolder = to.scope.folder;
  return ctx.syncs.exclusive(to.key, () =>
    copyByMoving(ctx.sync, requireVendorMessages(rows, 'moved to vendor folders'), vendorFolder),
  );
}
