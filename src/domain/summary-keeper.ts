import type { MetadataRecord } from '../mime';
import type { SyncContext } from './sync-context';

/**
 * A sync's stored summaries, kept for the metadata FETCH that follows it (every client fetches
 * the ENVELOPE and BODYSTRUCTURE of what a SELECT or an EXISTS showed it): the FETCH then reads
 * none of them back from the store, which was most of the first FETCH after a cold sync
 * (91-116 ms of 142-178 for 10,041 messages, 2026-11-27). Only while what the sync stored fits
 * the kept summaries (message-cache.ts, about 25,000 messages' worth): past that a FETCH of the
 * folder would read most of them from the store anyway, so those kept are dropped again and
 * an idle daemon does not hold a large folder's summaries; those no FETCH reads within a few
 * seconds of the sync's end are dropped too (message-cache.ts, `keptForFetchMs`).
 */
export const keptWhileSyncing = 20_000;

export class SummaryKeeper {
  /** What this sync kept so far; null once it stopped keeping. */
  private kept: string[] | null = [];

  constructor(
    private readonly ctx: Pick<SyncContext, 'keepSummaries' | 'forgetContent' | 'summariesShown'>,
    private readonly upTo = keptWhileSyncing,
  ) {}

  stored(records: readonly MetadataRecord[]): void {
    if (!this.kept) return;
    if (this.kept.length + records.length > this.upTo) {
      this.ctx.forgetContent(this.kept);
      this.kept = null;
      return;
    }
    this.ctx.keepSummaries(records);
    for (const r of records) this.kept.push(r.messageUid);
  }

  /** The sync ended (or failed): what it kept waits a while for its FETCH from now. */
  ended(): void {
    if (this.kept?.length) this.ctx.summariesShown(this.kept);
    this.kept = null;
  }
}
