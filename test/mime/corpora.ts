import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { MailMessage } from '../../src/domain/message';
import { generateCorpus } from '../../src/sandbox/corpus';
import { toVendorMessage } from '../../src/sandbox/message';
import { readStoredMessage } from '../../src/store/stored-message';
import { toMailMessage } from '../../src/upstream/vendor-message';
import { attachmentBytes, richVendorMessage } from './fixtures';
import { composed, realWorld } from './real-world-mail';

/**
 * The messages describing is checked against (composed-tree.test.ts, describe-caches.test.ts,
 * model-description.test.ts): the sandbox corpus, the round trip's (round-trip.test.ts) sandbox
 * corpus and real-world shapes, the rows stored by earlier versions and the rich fixture, each
 * as the bridge stores it.
 */

function sandboxCorpus(seed = 11, count = 800): MailMessage[] {
  const corpus = generateCorpus({
    seed,
    owner: 'alice@sandbox.test',
    count,
    anchor: Date.UTC(2026, 0, 1),
    firstSeq: 1,
  });
  return corpus.map((m) => {
    const files = new Map(m.content.attachments().map((a) => [a.meta.attachment_id, Buffer.concat([...a.chunks()])]));
    return composed({ msg: toVendorMessage(m, ['body', 'attachments', 'headers', 'full_headers']), files });
  });
}

function earlierRows(): MailMessage[] {
  const rows = JSON.parse(
    zlib.gunzipSync(fs.readFileSync(path.join(__dirname, 'earlier-rows.json.gz'))).toString('utf8'),
  ) as Array<{ message: unknown }>;
  return rows.map((r) => readStoredMessage(JSON.stringify(r.message))).filter((m) => !m.unreadable);
}

export const corpora: Record<string, () => MailMessage[]> = {
  'the sandbox corpus': () => sandboxCorpus(),
  "the round trip's sandbox corpus": () => sandboxCorpus(7, 200),
  'real-world shapes': () => Object.values(realWorld).map(composed),
  'rows stored by earlier versions': earlierRows,
  'the rich fixture, with and without a composition': () => [
    toMailMessage(richVendorMessage()),
    composed({ msg: richVendorMessage(), files: attachmentBytes }),
  ],
};
