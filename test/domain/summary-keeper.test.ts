import { expect, test, vi } from 'vitest';
import { MailStore } from '../../src/store/mail-store';
import { SummaryKeeper } from '../../src/domain/summary-keeper';
import type { MetadataRecord } from '../../src/mime';
import { status, useConformance } from '../support/conformance';

const records = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({ messageUid: `m${from + i}` }) as MetadataRecord);

test('a sync keeps what it stores while that fits, and drops it all once it does not', () => {
  const ctx = { keepSummaries: vi.fn(), forgetContent: vi.fn(), summariesShown: vi.fn() };
  const keeper = new SummaryKeeper(ctx, 5);
  keeper.stored(records(0, 2));
  keeper.stored(records(2, 3));
  expect(ctx.keepSummaries).toHaveBeenCalledTimes(2);
  expect(ctx.forgetContent).not.toHaveBeenCalled();
  keeper.stored(records(5, 1));
  expect(ctx.forgetContent).toHaveBeenCalledWith(['m0', 'm1', 'm2', 'm3', 'm4']);
  keeper.stored(records(6, 1));
  expect(ctx.keepSummaries).toHaveBeenCalledTimes(2);
  expect(ctx.forgetContent).toHaveBeenCalledTimes(1);
  keeper.ended();
  expect(ctx.summariesShown).not.toHaveBeenCalled();
});

test("what a sync kept starts waiting for its FETCH at the sync's end, once", () => {
  const ctx = { keepSummaries: vi.fn(), forgetContent: vi.fn(), summariesShown: vi.fn() };
  const keeper = new SummaryKeeper(ctx, 5);
  keeper.stored(records(0, 2));
  keeper.stored(records(2, 1));
  expect(ctx.summariesShown).not.toHaveBeenCalled();
  keeper.ended();
  keeper.ended();
  expect(ctx.summariesShown).toHaveBeenCalledTimes(1);
  expect(ctx.summariesShown).toHaveBeenCalledWith(['m0', 'm1', 'm2']);
});

const c = useConformance({ sandbox: { messages: 12 } });

test('the metadata FETCH after a first sync reads no summary back from the store', async () => {
  const getSummaries = vi.spyOn(MailStore.prototype, 'getSummaries');
  const s = await c.session('INBOX');
  const fetched = await s.run('UID FETCH 1:* (FLAGS ENVELOPE BODYSTRUCTURE RFC822.SIZE)');
  expect(status(fetched)).toMatch(/^OK/);
  const count = (fetched.match(/^\* \d+ FETCH /gm) ?? []).length;
  expect(count).toBeGreaterThan(0);
  expect(fetched).toContain('BODYSTRUCTURE (');
  expect(getSummaries).not.toHaveBeenCalled();
  getSummaries.mockRestore();
  s.close();
});
