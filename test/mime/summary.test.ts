import compiler from '@mailbridge/imap-core/lib/handler/imap-compiler';
import { getQueryResponse } from '@mailbridge/imap-core/lib/imap-tools';
import { describe, expect, test } from 'vitest';
import type { CompiledSummary } from '../../src/model/mail-rows';
import { compileSummary, describeMessage, describeRaw } from '../../src/mime';
import { buildMessage } from '../../src/mime/compose';
import { cloneImapStructure } from '../support/imap-structure';
import { corpora } from './corpora';

/**
 * compiled-summary.ts writes ENVELOPE and BODYSTRUCTURE out itself instead of through
 * imap-core's getQueryResponse and compiler: for every message of every corpus, as described
 * and as parsed from its served bytes, both give the same text for both session kinds.
 */

function imapCore(envelope: unknown[], bodystructure: unknown[], acceptUTF8Enabled: boolean) {
  const message = { envelope: cloneImapStructure(envelope), bodystructure: cloneImapStructure(bodystructure) };
  const [e, b] = getQueryResponse([{ item: 'envelope' }, { item: 'bodystructure' }], message, {
    acceptUTF8Enabled,
  }).map((v) => compiler({ attributes: [v] }));
  return { envelope: e, bodystructure: b };
}

function expectImapCore(summary: CompiledSummary, envelope: unknown[], bodystructure: unknown[], id: string): void {
  const { utf8, ...plain } = summary;
  expect(plain, id).toEqual(imapCore(envelope, bodystructure, false));
  expect(utf8 ?? plain, id).toEqual(imapCore(envelope, bodystructure, true));
}

describe('compiled summaries are what imap-core compiles', () => {
  for (const [name, messages] of Object.entries(corpora)) {
    test(name, () => {
      const all = messages();
      expect(all.length).toBeGreaterThan(0);
      let encoded = 0;
      for (const msg of all) {
        for (const d of [describeMessage(msg), describeRaw(buildMessage(msg, new Map()))]) {
          const summary = compileSummary(d.envelope, d.bodystructure);
          if (summary.utf8) encoded++;
          expectImapCore(summary, d.envelope, d.bodystructure, msg.id);
        }
      }
      // both kinds are seen where the corpus has non-ASCII text
      if (name === 'the sandbox corpus') expect(encoded).toBeGreaterThan(0);
    });
  }

  test('NIL, empty strings, numbers, groups, source routes and international domains', () => {
    const d = describeRaw(
      Buffer.from(
        [
          'From: =?utf-8?q?J=C3=B6rg?= <jörg@bücher.example>',
          'To: Friends: a@b.example, "Ünal" <u@xn--bcher-kva.example>;, c@d.example',
          'Cc: <@relay1.example,@relay2.example:r@e.example>',
          'Subject: ',
          'Content-Type: multipart/mixed; boundary=x',
          '',
          '--x',
          'Content-Type: text/plain; charset=utf-8; format=flowed',
          'Content-Disposition: inline; filename="a b.txt"',
          '',
          'hi',
          '--x',
          'Content-Type: application/pdf; name="Übersicht.pdf"',
          'Content-Transfer-Encoding: base64',
          '',
          'AAAA',
          '--x--',
          '',
        ].join('\r\n'),
      ),
    );
    const summary = compileSummary(d.envelope, d.bodystructure);
    expect(summary.utf8).toBeDefined();
    expectImapCore(summary, d.envelope, d.bodystructure, 'crafted');
  });

  test('strings the compiler escapes: quotes, backslashes, control characters, surrogates', () => {
    const texts = ['say "hi"', 'C:\\dir', 'tab\there', 'nul\u0000', 'emoji \u{1f600}', 'lone \ud800', 'plain'];
    for (const text of texts) {
      const envelope = [text, Buffer.from(text), null, null, null, null, null, null, text, `<${text}>`];
      const bodystructure = ['TEXT', 'PLAIN', ['CHARSET', Buffer.from(text)], text, null, '7BIT', 2, 1];
      expectImapCore(compileSummary(envelope, bodystructure), envelope, bodystructure, JSON.stringify(text));
    }
  });
});
