import { type Appended, appendSentCopy, messageIdOf, refuseAppend } from '../append';
import type { ImapFolder } from '../mailbox-map';
import { VendorFolderKind } from './vendor-folder';

/**
 * The vendor's Sent folder: APPEND of a client's Sent copy of a message it submitted through
 * the bridge is answered with the vendor's own copy (append.ts); any other APPEND is refused.
 */
export class SentKind extends VendorFolderKind {
  override async append(folder: ImapFolder, raw: Buffer, _flags: string[], _idate: Date): Promise<Appended> {
    const { sync, local } = this.ctx;
    const messageId = messageIdOf(raw);
    if (messageId && local.wasSubmitted(sync.account, messageId)) {
      return appendSentCopy(sync, folder, messageId, () => this.sync(folder, 'incremental', 'client'));
    }
    return refuseAppend(folder.path);
  }

  /** Which message is a Sent copy is known only from the message. */
  override refuseAppendHere(): void {}
}
