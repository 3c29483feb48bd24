import { expect, test } from 'vitest';
import { status, untagged, useConformance } from '../../support/conformance';

/**
 * RFC 3501 7.4.1: an untagged EXPUNGE must not be sent while answering FETCH, STORE or SEARCH
 * (sequence numbers would shift under the client). Another session's expunge waits for a
 * command that allows it (NOOP here).
 */

const c = useConformance();

test("another session's EXPUNGE is held back during FETCH, STORE and SEARCH and arrives with NOOP", async () => {
  const reader = await c.session('INBOX');
  const watcher = await c.session('INBOX');
  const deleter = await c.session('INBOX');
  const count = async () => untagged(await reader.run('SEARCH ALL'))[0].split(' ').length - 1;
  const before = await count();
  // the watcher idles: once it shows the EXPUNGE, every session of the folder has it queued
  await watcher.exchange('w1 IDLE\r\n', /^\+ .*\r\n/m);

  expect(status(await deleter.run('STORE 2 +FLAGS.SILENT (\\Deleted)'))).toMatch(/^OK/);
  expect(status(await deleter.run('EXPUNGE'))).toMatch(/^OK/);
  expect(await watcher.exchange('', /^\* 2 EXPUNGE\r\n/m)).toMatch(/^\* 2 EXPUNGE/m);
  await watcher.exchange('DONE\r\n', /^w1 OK.*\r\n/m);

  const fetched = await reader.run('FETCH 1:* (UID)');
  expect(status(fetched)).toMatch(/^OK/);
  expect(fetched).not.toMatch(/EXPUNGE/);
  const stored = await reader.run('STORE 1 +FLAGS (\\Flagged)');
  expect(status(stored)).toMatch(/^OK/);
  expect(stored).not.toMatch(/EXPUNGE/);
  const searched = await reader.run('SEARCH ALL');
  expect(status(searched)).toMatch(/^OK/);
  expect(searched).not.toMatch(/EXPUNGE/);

  const noop = await reader.run('NOOP');
  expect(untagged(noop)).toContain('2 EXPUNGE');
  expect(await count()).toBe(before - 1);
  for (const s of [reader, watcher, deleter]) s.close();
});
