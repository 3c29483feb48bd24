import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { expect, test } from 'vitest';

/**
 * src/util/lists.ts's claim, asked of V8 itself (%HaveSameMap, in a node started with
 * --allow-natives-syntax): Array.prototype.map gives an empty list another shape than a filled
 * one, lists from mapped() and kept() share one, and so do the lists describing makes of every
 * corpus message (compose.ts's addresses and attachments, message-keys.ts's keys).
 */

const root = path.join(__dirname, '..', '..');

function inV8<T>(script: string): T {
  const out = execFileSync(process.execPath, ['--allow-natives-syntax', '-r', 'tsx/cjs', '-e', script], { cwd: root });
  return JSON.parse(out.toString()) as T;
}

test('empty and filled lists from mapped() and kept() share a shape, where Array.prototype.map gives two', () => {
  const out = inV8<Record<string, boolean>>(`
    const { mapped, kept } = require('./src/util/lists');
    const box = (x) => ({ x });
    // the first lists of objects teach V8 the literal's storage (once it keeps feedback for the function)
    for (let i = 0; i < 100; i++) { mapped(['a'], box); kept([{}], () => true); }
    const empty = JSON.parse('[]'), filled = JSON.parse('["a", "b"]');
    process.stdout.write(JSON.stringify({
      builtin: %HaveSameMap(empty.map(box), filled.map(box)),
      mapped: %HaveSameMap(mapped(empty, box), mapped(filled, box)),
      kept: %HaveSameMap(kept([], () => true), kept([{}, {}], () => true)),
    }));`);
  expect(out).toEqual({ builtin: false, mapped: true, kept: true });
});

test('the lists describing makes have one shape each over the corpora, empty or not', () => {
  const out = inV8<{ messages: number; lists: Record<string, { count: number; empty: number; same: boolean }> }>(`
    const { composeOptions } = require('./src/mime/compose');
    const { describeRecord } = require('./src/mime/metadata-record');
    const { corpora } = require('./test/mime/corpora');
    const lists = { to: [], bcc: [], attachments: [], references: [], subjectText: [], ccText: [], parents: [] };
    let messages = 0;
    for (const corpus of Object.values(corpora)) {
      for (const msg of corpus()) {
        // the first lists of objects teach V8 each literal's storage: shapes are compared after them
        const counted = ++messages > 10;
        const { options } = composeOptions(msg, () => Buffer.alloc(0));
        const { keys } = describeRecord(msg);
        if (!counted) continue;
        lists.to.push(options.to);
        lists.bcc.push(options.bcc);
        lists.attachments.push(options.attachments);
        if (Array.isArray(options.references)) lists.references.push(options.references);
        lists.subjectText.push(keys.subjectText);
        lists.ccText.push(keys.ccText);
        lists.parents.push(keys.parents);
      }
    }
    process.stdout.write(JSON.stringify({ messages, lists: Object.fromEntries(Object.entries(lists).map(([name, all]) => [name, {
      count: all.length,
      empty: all.filter((l) => l.length === 0).length,
      same: all.every((l) => %HaveSameMap(l, all.at(-1))),
    }])) }));`);
  expect(out.messages).toBeGreaterThan(1000);
  for (const [name, list] of Object.entries(out.lists)) {
    if (!list.count) continue;
    expect(list.same, name).toBe(true);
  }
  // empty and filled lists both occur, or sharing a shape would prove nothing
  expect(out.lists.bcc.empty).toBeGreaterThan(0);
  expect(out.lists.ccText.empty).toBeGreaterThan(0);
  expect(out.lists.parents.empty).toBeGreaterThan(0);
  expect(out.lists.attachments.empty).toBeGreaterThan(0);
  expect(out.lists.attachments.count - out.lists.attachments.empty).toBeGreaterThan(0);
});
