import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { expect, test } from 'vitest';

/**
 * Describing lays out every message of a sync (compose.ts's options, mime-layout.ts's parts),
 * and V8 optimizes the code that reads them for the object shapes it has seen: a part of
 * another shape met later (the first attachment with a Content-ID, the first message/* part)
 * sends that code back to the interpreter and the compiler, in every new describe worker.
 * So every laid-out part has one shape, and so has every attachment's options, whatever the
 * message holds. V8's own %HaveSameMap tells, in a node started with --allow-natives-syntax.
 */

const root = path.join(__dirname, '..', '..');

test('laid-out parts, and the attachments of compose options, have one shape each over the corpora', () => {
  const script = `
    const { composeOptions } = require('./src/mime/compose');
    const { mimeLayout } = require('./src/mime/mime-layout');
    const { corpora } = require('./test/mime/corpora');
    const parts = [];
    const attachments = [];
    const kinds = new Set();
    for (const messages of Object.values(corpora)) {
      for (const msg of messages()) {
        const compose = composeOptions(msg, () => Buffer.alloc(0));
        attachments.push(...compose.options.attachments);
        const walk = (part) => {
          parts.push(part);
          kinds.add([part.content === undefined ? 'multipart' : 'leaf', part.filename ? 'file' : '', part.attachment ? 'att' : ''].join());
          part.children.forEach(walk);
        };
        const layout = mimeLayout(compose);
        if (layout) walk(layout);
      }
    }
    const same = (list) => list.every((o) => %HaveSameMap(o, list[0]));
    process.stdout.write(JSON.stringify({ parts: parts.length, kinds: kinds.size, attachments: attachments.length, partsSame: same(parts), attachmentsSame: same(attachments) }));`;
  const out = JSON.parse(
    execFileSync(process.execPath, ['--allow-natives-syntax', '-r', 'tsx/cjs', '-e', script], { cwd: root }).toString(),
  );
  // the corpora hold multiparts, bodies, files and vendor attachments: shapes that could differ
  expect(out.kinds).toBeGreaterThanOrEqual(4);
  expect(out.attachments).toBeGreaterThan(100);
  expect(out).toMatchObject({ partsSame: true, attachmentsSame: true });
});
