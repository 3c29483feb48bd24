import { expect, test } from 'vitest';
import type { Clock } from '../../src/auth/clock';
import { LoginThrottle } from '../../src/auth/login-throttle';

/** A clock whose sleeps return at once, advancing its time and recording each wait. */
function fakeClock(): Clock & { waits: number[] } {
  let now = 1_000_000;
  const waits: number[] = [];
  return {
    waits,
    now: () => now,
    sleep: async (ms) => {
      waits.push(ms);
      now += ms;
    },
  };
}

const wrong = async () => false;
const right = async () => true;

test('after the free failures each try waits a delay that doubles from 100 ms', async () => {
  const clock = fakeClock();
  const throttle = new LoginThrottle({ freeFailures: 3, clock });
  const delays: number[] = [];
  for (let i = 0; i < 8; i++) delays.push((await throttle.attempt('127.0.0.1', wrong)).delayedMs);
  expect(delays).toEqual([0, 0, 0, 100, 200, 400, 800, 1600]);
  expect(throttle.delayFor(50)).toBe(10_000);
});

test('a burst over many connections is serialized: at most 10 tries a second from one peer', async () => {
  const clock = fakeClock();
  const throttle = new LoginThrottle({ freeFailures: 3, clock });
  let running = 0;
  let most = 0;
  const slowWrong = async () => {
    most = Math.max(most, ++running);
    await new Promise((r) => setImmediate(r));
    running--;
    return false;
  };
  const start = clock.now();
  const results = await Promise.all(Array.from({ length: 40 }, () => throttle.attempt('10.0.0.7', slowWrong)));
  expect(results.every((r) => !r.ok)).toBe(true);
  // the first free ones run together, the rest one at a time
  expect(most).toBe(3);
  expect(results.filter((r) => r.delayedMs === 0)).toHaveLength(3);
  const tries = results.length - 3;
  expect(clock.now() - start).toBeGreaterThanOrEqual(tries * 100);
  expect(Math.min(...clock.waits)).toBeGreaterThanOrEqual(100);
});

test('peers are counted apart; a good login clears the count, so does a quiet quarter hour', async () => {
  const clock = fakeClock();
  const throttle = new LoginThrottle({ freeFailures: 2, clock });
  for (let i = 0; i < 4; i++) await throttle.attempt('a', wrong);
  expect((await throttle.attempt('b', wrong)).delayedMs).toBe(0);
  expect((await throttle.attempt('a', right)).delayedMs).toBe(400);
  expect((await throttle.attempt('a', wrong)).delayedMs).toBe(0);

  for (let i = 0; i < 4; i++) await throttle.attempt('c', wrong);
  expect(throttle.delayFor(4)).toBe(400);
  await clock.sleep(15 * 60 * 1000 + 1);
  expect((await throttle.attempt('c', wrong)).delayedMs).toBe(0);
});

test('legitimate logins arriving together are not delayed', async () => {
  const clock = fakeClock();
  const throttle = new LoginThrottle({ freeFailures: 3, clock });
  const results = await Promise.all(Array.from({ length: 50 }, () => throttle.attempt('127.0.0.1', right)));
  expect(results.every((r) => r.ok && r.delayedMs === 0)).toBe(true);
  expect(clock.waits).toEqual([]);
});
