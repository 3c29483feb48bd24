import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { handoverFile, takeVendorHandover } from '../src/vendor-handover';

let dir: string;
let now: number;
const clock = () => now;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbridge-handover-'));
  now = Date.UTC(2026, 10, 27, 12);
});

afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

test('a new state directory holds nothing, and the record it leaves is 0600', () => {
  expect(takeVendorHandover(dir, 1000, clock).holdMs).toBe(0);
  expect(fs.statSync(path.join(dir, handoverFile)).mode & 0o777).toBe(0o600);
});

test('after a clean stop, requests wait for what is left of a window after it', () => {
  takeVendorHandover(dir, 1000, clock).stopped();
  now += 300;
  expect(takeVendorHandover(dir, 1000, clock).holdMs).toBe(700);
});

test('after a clean stop a window ago or more, nothing waits', () => {
  takeVendorHandover(dir, 1000, clock).stopped();
  now += 1000;
  expect(takeVendorHandover(dir, 1000, clock).holdMs).toBe(0);
});

test('a run that never recorded its stop (killed, crashed) holds a whole window, and so does the next until one stops', () => {
  takeVendorHandover(dir, 1000, clock);
  now += 60_000;
  const next = takeVendorHandover(dir, 1000, clock);
  expect(next.holdMs).toBe(1000);
  expect(takeVendorHandover(dir, 1000, clock).holdMs).toBe(1000);
  next.stopped();
  now += 5_000;
  expect(takeVendorHandover(dir, 1000, clock).holdMs).toBe(0);
});

test('a torn or foreign record holds a whole window', () => {
  fs.writeFileSync(path.join(dir, handoverFile), '{"stoppedAt":');
  expect(takeVendorHandover(dir, 1000, clock).holdMs).toBe(1000);
  fs.writeFileSync(path.join(dir, handoverFile), '{"stoppedAt":"yesterday"}');
  expect(takeVendorHandover(dir, 1000, clock).holdMs).toBe(1000);
});

test('a wall clock set back after the stop holds at most a window', () => {
  takeVendorHandover(dir, 1000, clock).stopped();
  now -= 3_600_000;
  expect(takeVendorHandover(dir, 1000, clock).holdMs).toBe(1000);
});
