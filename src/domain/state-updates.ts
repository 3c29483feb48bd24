import type { NewMessage } from '../store';

/**
 * Every change to IMAP state is one of these typed updates, whatever caused it: a sync or poll,
 * a client's STORE/MOVE/COPY/EXPUNGE/APPEND, or a change made in webmail. They enter the state
 * through one door (StateApplier.apply), which gives out UIDs and MODSEQs, commits, and
 * journals in MODSEQ order in one step.
 *
 * `folder` is a folder's state key: the vendor folder name or a label view's key (labels.ts).
 * `cause` names the session that made the change and already told its client.
 */

/** Messages placed in a folder: the next UIDs, in the given (arrival) order; known ones keep theirs. */
export interface MessagesAdded {
  type: 'added';
  folder: string;
  messages: NewMessage[];
  /** false for a folder's first listing: every session waits for it, none needs those EXISTS. */
  announce: boolean;
  cause?: string;
}

/** The whole flag list of some rows of one folder. */
export interface FlagsSet {
  type: 'flags';
  folder: string;
  rows: ReadonlyArray<{ uid: number; flags: readonly string[] }>;
  cause?: string;
}

/**
 * Message-wide flags (\Seen, \Flagged, $Important, label keywords) changed in `from`: shown on
 * every other row of the same messages; a label view of a label the message lost drops it.
 */
export interface MessageFlagsSpread {
  type: 'spread';
  from: string;
  flags: ReadonlyMap<string, readonly string[]>;
}

/** Messages gone from a folder (moved, expunged, deleted elsewhere). */
export interface MessagesRemoved {
  type: 'removed';
  folder: string;
  messageUids: readonly string[];
  cause?: string;
}

export type StateUpdate = MessagesAdded | FlagsSet | MessageFlagsSpread | MessagesRemoved;
