import type { Ownership, OwnershipEvents } from './state-store';
import { accountId } from '../model/account-id';

/** One node owns every wanted account (the SQLite state is its alone). */
export function soleOwnership(): Ownership {
  let wanted: () => string[] = () => [];
  let events: OwnershipEvents | null = null;
  const serving = new Map<string, string>();
  const review = async () => {
    if (!events) return;
    const now = new Map<string, string>(wanted().map((m) => [accountId(m), m]));
    for (const [key, mailbox] of [...serving])
      if (!now.has(key)) {
        serving.delete(key);
        await events.lost(mailbox, 'given up');
      }
    for (const [key, mailbox] of now)
      if (!serving.has(key)) {
        serving.set(key, mailbox);
        events.gained(mailbox);
      }
  };
  return {
    advertise: () => undefined,
    ownerOf: async () => null,
    start(w, e) {
      wanted = w;
      events = e;
      return review();
    },
    review,
    async stop() {
      events = null;
      serving.clear();
    },
  };
}
