import { expect, test } from 'vitest';
import type { Lane } from '../../src/upstream/rate-limiter';
import type { Command, CommandResult } from '../../src/upstream/types';
import { WriteBatcher } from '../../src/upstream/write-batcher';
import { ManualClock } from '../support/manual-clock';

/** A gate that grants only when told: each request waits until grant() takes its commands. */
function heldGate() {
  const requests: Array<{
    lane: Lane;
    sent?: Command[];
    grant(): Command[];
    answer(): void;
    fail(err: Error): void;
  }> = [];
  const send = (take: () => Command[], lane: Lane) =>
    new Promise<CommandResult[]>((resolve, reject) => {
      const r = {
        lane,
        sent: undefined as Command[] | undefined,
        grant: () => {
          r.sent = take();
          return r.sent;
        },
        answer: () =>
          resolve((r.sent ?? []).map((c, i) => ({ id: String(i), command: c.command, type: 'SUCCESS' as const }))),
        fail: (err: Error) => reject(err),
      };
      requests.push(r);
    });
  return { requests, send };
}

const write = (n: number): Command[] => [{ command: 'flag', args: { ids: [`m${n}`] } }];

test('writes issued while a request waits for the gate ride in it, up to 20 commands', async () => {
  const gate = heldGate();
  const batcher = new WriteBatcher(gate.send, 20, 4);
  const answers = Array.from({ length: 25 }, (_, i) => batcher.submit(write(i), 'write'));
  // the first write starts a request at once; the next 19 join it while it waits; the rest start a second
  expect(gate.requests).toHaveLength(2);
  expect(gate.requests[0].grant()).toHaveLength(20);
  // granted: a write issued now cannot join the first request, and joins the waiting second one
  answers.push(batcher.submit(write(25), 'write'));
  expect(gate.requests).toHaveLength(2);
  expect(gate.requests[1].grant().map((c) => String(c.args?.ids))).toEqual(
    Array.from({ length: 6 }, (_, i) => `m${20 + i}`),
  );
  for (const r of gate.requests) r.answer();
  const results = await Promise.all(answers);
  expect(results.every((r) => r.length === 1 && r[0].type === 'SUCCESS')).toBe(true);
});

test('a write in a higher lane does not wait in a lower lane request; a full gate holds the rest', async () => {
  const gate = heldGate();
  const batcher = new WriteBatcher(gate.send, 20, 2);
  const sync = batcher.submit(write(1), 'sync');
  const click = batcher.submit(write(2), 'write');
  expect(gate.requests.map((r) => r.lane)).toEqual(['sync', 'write']);
  gate.requests[0].grant();
  expect(gate.requests[1].grant()).toHaveLength(1);
  // both requests granted and out, the most allowed: the next writes wait in the batcher
  const later = [batcher.submit(write(3), 'write'), batcher.submit(write(4), 'write')];
  expect(gate.requests).toHaveLength(2);
  gate.requests[0].fail(new Error('reset'));
  await expect(sync).rejects.toThrow('reset');
  // a place is free: the waiting writes share one request
  expect(gate.requests).toHaveLength(3);
  expect(gate.requests[2].grant()).toHaveLength(2);
  gate.requests[1].answer();
  gate.requests[2].answer();
  expect(await click).toHaveLength(1);
  expect((await Promise.all(later)).flat()).toHaveLength(2);
});

test("while the vendor's window is half used, write requests start a spacing apart and the writes issued meanwhile share the next", async () => {
  const gate = heldGate();
  const clock = new ManualClock();
  let crowded = false;
  const batcher = new WriteBatcher(gate.send, 20, 4, { clock, spacingMs: 67, crowded: () => crowded });
  const answers = [batcher.submit(write(1), 'write')];
  gate.requests[0].grant();
  // a window with room: the next write goes at once, though the last went just now
  await clock.advance(10);
  answers.push(batcher.submit(write(2), 'write'));
  expect(gate.requests).toHaveLength(2);
  gate.requests[1].grant();
  // half used: the next request waits for the spacing after the last, gathering what comes meanwhile
  crowded = true;
  await clock.advance(10);
  answers.push(batcher.submit(write(3), 'write'));
  await clock.advance(30);
  answers.push(batcher.submit(write(4), 'write'));
  expect(gate.requests).toHaveLength(2);
  await clock.advance(26);
  expect(gate.requests).toHaveLength(2);
  await clock.advance(1);
  expect(gate.requests).toHaveLength(3);
  expect(gate.requests[2].grant()).toHaveLength(2);
  for (const r of gate.requests) r.answer();
  expect((await Promise.all(answers)).flat()).toHaveLength(4);
});
