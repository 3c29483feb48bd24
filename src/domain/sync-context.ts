import type { AccountId } from '../model/account-id';
import type { MetadataRecord } from '../mime';
import type { Logger } from '../log';
import type { MailState } from '../store';
import type { Connector, ListScope, MessagePage } from './connector';
import type { StateApplier } from './state-applier';

/** What a folder sync and the organizing writes (labels, moves) of one account work with. */
export interface SyncContext {
  account: AccountId;
  vendor: Connector;
  store: MailState;
  logger: Logger;
  state: StateApplier;
  /** Drops what was built (MIME trees, summary bytes) of messages whose stored form was replaced. */
  forgetContent(messageUids: string[]): void;
  /** Keeps the summary bytes of records just stored for a FETCH of them (summary-keeper.ts). */
  keepSummaries(records: readonly MetadataRecord[]): void;
  /** The sync that kept these summaries ended: from now they wait a while for their FETCH. */
  summariesShown(messageUids: readonly string[]): void;
  /** The first page of `scope` if it was asked for already (a cold account's INBOX, see AccountView.folder). */
  firstPage(scope: ListScope): Promise<MessagePage> | null;
}

/**
 * `first`: the first complete listing of a folder. It is a full sync whose new messages are not
 * journaled: every session that selects the folder waits for this listing and starts from its
 * result, so no session can need those EXISTS (a 100,000-message folder would otherwise fill
 * the journal with them).
 */
export type SyncMode = 'first' | 'full' | 'incremental';
