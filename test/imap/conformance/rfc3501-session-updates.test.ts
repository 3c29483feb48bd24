import { expect, test } from 'vitest';
import { status, untagged, useConformance } from '../../support/conformance';

/**
 * RFC 3501 5.2 and 7.3.1: a session learns of changes to its selected folder in the answer
 * of its next command, its own APPEND included (6.3.11: the server SHOULD send EXISTS), as
 * Dovecot does.
 */

const c = useConformance({ sandbox: { messages: 6 } });

const draft = (n: number) =>
  [
    'From: Ann <ann@example.test>',
    `Subject: draft ${n}`,
    `Message-ID: <updates-${n}@example.test>`,
    '',
    'text',
    '',
  ].join('\r\n');

test('APPEND into the selected folder is answered with the new EXISTS before its OK', async () => {
  const s = await c.session('Drafts');
  const before = Number(/^\* (\d+) EXISTS/m.exec(await s.run('SELECT Drafts'))?.[1]);
  const answer = await s.append('Drafts', draft(1));
  expect(status(answer)).toMatch(/^OK \[APPENDUID/);
  expect(untagged(answer)).toContain(`${before + 1} EXISTS`);
  s.close();
});

test("CHECK after another session's STORE carries the FETCH of the new flags", async () => {
  const watcher = await c.session('INBOX');
  const writer = await c.session('INBOX');
  expect(status(await writer.run('STORE 1 +FLAGS.SILENT (\\Flagged)'))).toMatch(/^OK/);
  const answer = await watcher.run('CHECK');
  expect(status(answer)).toMatch(/^OK/);
  expect(untagged(answer)).toEqual([expect.stringMatching(/^1 FETCH \(FLAGS \(.*\\Flagged.*\)/)]);
  for (const s of [watcher, writer]) s.close();
});
