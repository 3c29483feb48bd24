import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { DescribePool, describeRecord } from '../../src/mime';
import type { MailMessage } from '../../src/domain/message';
import type { VendorMessage } from '../../src/upstream/types';
import { toMailMessage } from '../../src/upstream/vendor-message';
import { ManualClock } from '../support/manual-clock';
import { richMessage, richVendorMessage } from './fixtures';

function messages(n: number): MailMessage[] {
  return Array.from({ length: n }, (_, i) => ({
    ...richMessage(),
    id: `msg-${i}`,
    subject: `subject ${i} ü`,
  }));
}

describe('DescribePool', () => {
  const pool = new DescribePool({ workers: 2, inlineBelow: 5, chunk: 7 });
  afterAll(() => pool.close());

  it('gives in worker threads the very rows describing inline gives, in order', async () => {
    const input = messages(30);
    const pooled = await pool.describe(input);
    const inline = input.map(describeRecord);
    expect(pooled.map((r) => r.messageUid)).toEqual(input.map((m) => m.id));
    expect(pooled).toEqual(inline);
    expect(new Set(pooled.map((r) => r.summary)).size).toBe(30);
  });

  it('describes messages from their JSON: a field the JSON leaves out gives the row describing inline gives', async () => {
    // structured cloning keeps an undefined field, JSON drops it: the worker sees the stored form
    const input = messages(10).map((m) => ({ ...m, listUnsubscribe: undefined, composition: undefined }));
    const pooled = await pool.describe(input);
    expect(pooled).toEqual(input.map(describeRecord));
    expect(pooled.map((r) => r.message)).toEqual(input.map((m) => JSON.stringify(m)));
  });

  it('keeps idle workers while held and ends them as soon as the last hold ends', async () => {
    const clock = new ManualClock();
    const quick = new DescribePool({ workers: 2, inlineBelow: 5, chunk: 7, idleMs: 20, clock });
    try {
      const release = quick.hold();
      const again = quick.hold();
      await quick.describe(messages(20));
      expect(quick.running).toBe(2);
      await clock.advance(100); // far past idleMs
      expect(quick.running).toBe(2);
      release();
      expect(quick.running).toBe(2); // another hold remains
      again();
      expect(quick.running).toBe(0);
      // without a hold, idle workers end after idleMs
      await quick.describe(messages(20));
      expect(quick.running).toBeGreaterThan(0);
      await clock.advance(19);
      expect(quick.running).toBeGreaterThan(0);
      await clock.advance(1);
      expect(quick.running).toBe(0);
    } finally {
      await quick.close();
    }
  });

  it('starts a worker when told a batch that needs one is coming, and only then', async () => {
    const clock = new ManualClock();
    const ready = new DescribePool({ workers: 1, inlineBelow: 5, idleMs: 20, clock });
    try {
      ready.prepare(4);
      expect(ready.running).toBe(0); // described inline when it comes
      ready.prepare(5);
      expect(ready.running).toBe(1);
      ready.prepare(50);
      expect(ready.running).toBe(1);
      // while it runs, a small batch goes to it too: the same rows
      const posted = vi.spyOn(Worker.prototype, 'postMessage');
      const input = messages(3);
      expect(await ready.describe(input)).toEqual(input.map(describeRecord));
      expect(posted).toHaveBeenCalledTimes(1);
      posted.mockRestore();
      await clock.advance(20); // nothing came: it ends as an idle worker does
      expect(ready.running).toBe(0);
      const none = new DescribePool({ workers: 0, inlineBelow: 5 });
      none.prepare(100);
      expect(none.running).toBe(0);
    } finally {
      await ready.close();
    }
  });

  it('describes a message it cannot convert as a placeholder, and the rest of its batch as usual', async () => {
    // a field of the wrong type in the vendor's JSON: the connector marks the message unreadable
    const bad = toMailMessage({
      ...richVendorMessage(),
      message_uid: 'bad',
      attachments: 'not a list',
    } as unknown as VendorMessage);
    expect(bad.unreadable).toBeTruthy();
    const records = await pool.describe([...messages(9), bad]);
    expect(records.map((r) => Boolean(r.unconvertible))).toEqual([...Array(9).fill(false), true]);
    expect(records[9].header).toContain('X-Mailbridge-Unconvertible: yes');
    expect(records.slice(0, 9)).toEqual(messages(9).map(describeRecord));
  });

  /**
   * Describes `input` with `pool`, counting the event loop's turns meanwhile: what waits for the
   * loop (a vendor answer, the next list request) while describing runs. `started` sees the
   * count once describing was started, before anything awaited.
   */
  async function describedWithTurns(pool: DescribePool, input: MailMessage[], started?: (turns: number) => void) {
    let turns = 0;
    let done = false;
    const tick = () => {
      if (done) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const described = pool.describe(input);
    started?.(turns);
    const records = await described;
    done = true;
    expect(records).toEqual(input.map(describeRecord));
    return turns;
  }

  it('without workers, describes a large batch on this thread in slices, letting I/O in between', async () => {
    const inline = new DescribePool({ workers: 0, inlineBelow: 5, slice: 7 });
    const turns = await describedWithTurns(inline, messages(30), (before) => expect(before).toBe(0));
    // one turn before each slice of `slice` messages: the caller's own work goes first
    expect(turns).toBeGreaterThanOrEqual(Math.ceil(30 / 7));
  });

  it('without workers, a slice ends when its time is up: a vendor answer waits for a few ms of describing at most', async () => {
    // a clock each look at which finds a millisecond gone: every message takes 1 ms
    let t = 0;
    const manual = new ManualClock();
    const ticking = { now: () => t++, after: (ms: number, fn: () => void) => manual.after(ms, fn) };
    const inline = new DescribePool({ workers: 0, inlineBelow: 5, slice: 20, sliceMs: 3, clock: ticking });
    const turns = await describedWithTurns(inline, messages(30));
    // 30 messages of 1 ms in slices of 3 ms: ten turns at least, where 20 messages a slice gave two
    expect(turns).toBeGreaterThanOrEqual(10);
  });
});
