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

/** Pacing on a manual clock, 15 requests a second: the window counts what the test says. */
function paced() {
  const gate = heldGate();
  const clock = new ManualClock();
  const window = { requests: 0, freesAt: Number.POSITIVE_INFINITY };
  const batcher = new WriteBatcher(gate.send, 20, 4, { clock, perWindow: 15, windowMs: 1000, counted: () => window });
  return { gate, clock, window, batcher };
}

/** Half the window counted, the first of them leaving it at `freesAt`. */
const halfUsed = (freesAt = Number.POSITIVE_INFINITY) => ({ requests: 8, freesAt });

test("one writer while the vendor's window is half used: its requests start a spacing apart", async () => {
  const { gate, clock, window, batcher } = paced();
  const answers = [batcher.submit(write(1), 'write')];
  gate.requests[0].grant();
  // a window with room: the next write goes at once, though the last went just now
  await clock.advance(10);
  answers.push(batcher.submit(write(2), 'write'));
  expect(gate.requests).toHaveLength(2);
  gate.requests[1].grant();
  // half used: the next request waits for the spacing (1000 / 15 ms) after the last
  Object.assign(window, halfUsed());
  await clock.advance(10);
  answers.push(batcher.submit(write(3), 'write'));
  await clock.advance(56);
  expect(gate.requests).toHaveLength(2);
  await clock.advance(1);
  expect(gate.requests).toHaveLength(3);
  // the same once that spacing has long passed: the write goes at once
  gate.requests[2].grant();
  await clock.advance(200);
  answers.push(batcher.submit(write(4), 'write'));
  expect(gate.requests).toHaveLength(4);
  gate.requests[3].grant();
  for (const r of gate.requests) r.answer();
  expect((await Promise.all(answers)).flat()).toHaveLength(4);
});

test("while the window is half used, a request goes once it carries the writes of two callers; one caller's commands issued together count once", async () => {
  const { gate, clock, window, batcher } = paced();
  Object.assign(window, halfUsed(100));
  const first = batcher.submit(write(1), 'write');
  gate.requests[0].grant();
  // a STORE's flag and label commands, issued together: one caller, the request waits on
  await clock.advance(5);
  const flag = batcher.submit(write(2), 'write');
  const label = batcher.submit(write(3), 'write');
  await clock.advance(20);
  expect(gate.requests).toHaveLength(1);
  // another caller's write: the request goes at once, 25 ms after the last instead of 67
  const other = batcher.submit(write(4), 'write');
  expect(gate.requests).toHaveLength(2);
  expect(gate.requests[1].grant().map((c) => String(c.args?.ids))).toEqual(['m2', 'm3', 'm4']);
  for (const r of gate.requests) r.answer();
  expect((await Promise.all([first, flag, label, other])).flat()).toHaveLength(4);
});

test('while writes come faster than the window admits requests, a lone write waits a spacing for others, and requests carry enough callers to keep up', async () => {
  const { gate, clock, window, batcher } = paced();
  const answers: Array<Promise<CommandResult[]>> = [];
  // 30 callers' writes within 600 ms, each in a request of its own while the window had room
  for (let i = 0; i < 30; i++) {
    answers.push(batcher.submit(write(i), 'write'));
    gate.requests[i].grant();
    gate.requests[i].answer();
    await clock.advance(20);
  }
  expect(gate.requests).toHaveLength(30);
  // half used now, and the last request started long ago: a lone write still waits a spacing
  // after it was issued, for another caller to share its request
  Object.assign(window, halfUsed(1000));
  await clock.advance(100);
  answers.push(batcher.submit(write(30), 'write'));
  await clock.advance(33);
  // a second caller is not enough: 32 writes in the window over the 15 requests it admits make 3
  answers.push(batcher.submit(write(31), 'write'));
  expect(gate.requests).toHaveLength(30);
  await clock.advance(10);
  answers.push(batcher.submit(write(32), 'write'));
  expect(gate.requests).toHaveLength(31);
  expect(gate.requests[30].grant()).toHaveLength(3);
  // short of that, the spacing after the first write: 1000 / 15 ms
  await clock.advance(10);
  answers.push(batcher.submit(write(33), 'write'));
  await clock.advance(66);
  expect(gate.requests).toHaveLength(31);
  await clock.advance(1);
  expect(gate.requests).toHaveLength(32);
  expect(gate.requests[31].grant()).toHaveLength(1);
  for (const r of gate.requests) r.answer();
  expect((await Promise.all(answers)).flat()).toHaveLength(34);
});

test("a request carrying enough callers' writes still leaves the places left spread until the first counted one frees", async () => {
  const { gate, clock, window, batcher } = paced();
  const answers = [batcher.submit(write(1), 'write')];
  gate.requests[0].grant();
  // 13 requests counted, the first leaving the window at 120 ms: the 2 places left, spread from
  // the last start at 0, reach it 40 ms apart
  Object.assign(window, { requests: 13, freesAt: 120 });
  await clock.advance(10);
  answers.push(batcher.submit(write(2), 'write'));
  await clock.advance(10);
  answers.push(batcher.submit(write(3), 'write'));
  await clock.advance(19);
  expect(gate.requests).toHaveLength(1);
  await clock.advance(1);
  expect(gate.requests).toHaveLength(2);
  expect(gate.requests[1].grant()).toHaveLength(2);
  for (const r of gate.requests) r.answer();
  expect((await Promise.all(answers)).flat()).toHaveLength(3);
});
