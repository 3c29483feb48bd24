import { type Connector, OutcomeUnknownError, type WriteResult } from './connector';
import type { MailMessage } from './message';
import { Refusal } from './refusal';

/**
 * A vendor write whose outcome is known. When the answer was lost after the request may have
 * reached the vendor, the messages are read back (through the gate, in the write lane) and the
 * vendor's own state says which ids the write reached: nothing is guessed, and the write is
 * never sent twice.
 */
export interface SettledWrite extends WriteResult {
  /** Ids the vendor did not change; `error` says why. */
  failed: string[];
  error?: unknown;
  /** The vendor's state of every message read back: local state is brought to it. */
  readBack: MailMessage[];
}

/** What the client is told when the read-back shows the vendor did not take the write. */
const notApplied = new Refusal(
  'unavailable',
  'The mail vendor lost its answer and, read back, had not applied the change: nothing was changed, try again',
);

/** The rule that tells from a message read back whether the write reached it. */
export type Applied = (message: MailMessage) => boolean;

export async function settleWrite(
  vendor: Connector,
  ids: string[],
  write: () => Promise<WriteResult>,
  applied: Applied,
): Promise<SettledWrite> {
  try {
    return { ...(await write()), failed: [], readBack: [] };
  } catch (err) {
    if (!(err instanceof OutcomeUnknownError)) return { done: [], notFound: [], failed: ids, error: err, readBack: [] };
    const { messages, notFound } = await vendor.readBack(err.ids);
    const reached = messages.filter(applied).map((m) => m.id);
    const failed = messages.filter((m) => !applied(m)).map((m) => m.id);
    return {
      done: [...err.settled.done, ...reached],
      notFound: [...err.settled.notFound, ...notFound],
      failed,
      error: failed.length ? notApplied : undefined,
      readBack: messages,
    };
  }
}

/** Refuses with the write's error when it reached none of the messages. */
export function requireSomeDone(settled: SettledWrite): SettledWrite {
  if (settled.error && !settled.done.length && !settled.notFound.length) throw settled.error;
  return settled;
}
