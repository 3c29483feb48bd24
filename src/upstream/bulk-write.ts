import type { BulkResult } from './api';
import { chunk, maxCommandsPerRequest, maxIdsPerGetMessages } from './command-batching';
import { OutcomeUnknownError } from '../domain/connector';
import { TransportError, VendorError } from './errors';
import type { Lane } from './rate-limiter';
import type { CommandResult } from './types';
import type { WriteBatcher } from './write-batcher';

/**
 * A failed write request that may still have been applied: the request may have arrived and
 * the answer proves nothing either way (lost connection or timeout after sending, a 5xx other
 * than AUTH_UNAVAILABLE, an unreadable 2xx). Refusals (4xx, 503 AUTH_UNAVAILABLE, no
 * connection) prove nothing happened.
 */
function mayHaveApplied(err: unknown): boolean {
  if (err instanceof TransportError) return err.maybeSent;
  return err instanceof VendorError && err.kind === 'internal';
}

export interface BulkWrite {
  command: string;
  ids: string[];
  /** Every group's arguments besides its ids. */
  args: Record<string, unknown>;
  /** The result field listing the ids the command changed. */
  doneField: string;
  /** The result field listing the ids the vendor does not know. */
  notFoundField: string;
  lane: Lane;
}

/**
 * A write over many ids: groups of 50, 20 groups a request, every group's outcome collected.
 * Groups whose outcome is unknown make the whole call throw OutcomeUnknownError (with the
 * outcomes that are known); otherwise the first definite failure is thrown.
 */
export async function bulkWrite(
  writes: WriteBatcher,
  failure: (result: CommandResult) => VendorError,
  { command, ids, args, doneField, notFoundField, lane }: BulkWrite,
): Promise<BulkResult> {
  const groups = chunk([...new Set(ids)], maxIdsPerGetMessages);
  const requests = chunk(groups, maxCommandsPerRequest);
  const settled = await Promise.allSettled(
    requests.map((r) =>
      writes.submit(
        r.map((group) => ({ command, args: { ids: group, ...args } })),
        lane,
      ),
    ),
  );
  const out: BulkResult = { done: [], notFound: [] };
  const unknown: string[] = [];
  let unknownCause: unknown = null;
  let failed: unknown = null;
  const fail = (group: string[], err: unknown) => {
    if (mayHaveApplied(err)) {
      unknown.push(...group);
      unknownCause ??= err;
    } else failed ??= err;
  };
  for (const [r, outcome] of settled.entries()) {
    if (outcome.status === 'rejected') {
      fail(requests[r].flat(), outcome.reason);
      continue;
    }
    for (const [g, result] of outcome.value.entries()) {
      if (result.type !== 'SUCCESS') {
        fail(requests[r][g], failure(result));
        continue;
      }
      const data = (result.data ?? {}) as Record<string, unknown>;
      out.done.push(...((data[doneField] as string[]) ?? []));
      out.notFound.push(...((data[notFoundField] as string[]) ?? []));
    }
  }
  if (unknown.length) throw new OutcomeUnknownError(command, unknown, out, unknownCause);
  if (failed) throw failed;
  return out;
}
