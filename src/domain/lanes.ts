import type { Lane } from './connector';
import type { SyncMode } from './sync-context';

/**
 * Which lane (connector.ts) the domain's vendor reads go in: who waits for them decides.
 */

/** A poll's reads go before first syncs and full reconciliations. */
export const syncLanes: Record<SyncMode, Lane> = { first: 'sync', full: 'sync', incremental: 'poll' };

/** Content FETCHes of more messages than this are a bulk download, not a person opening a message. */
const clickMessages = 5;

/**
 * The lane of the attachment downloads a content FETCH of `messages` messages needs: opening
 * a message (or a few) goes first; a bulk download goes with the syncs, so it cannot queue
 * ahead of a click.
 */
export function contentLane(messages: number): Lane {
  return messages > clickMessages ? 'sync' : 'content';
}
