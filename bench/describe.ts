import type { MailMessage } from '../src/domain/message';
import { buildMessage, contentTree, describeRecord, metadataRecord } from '../src/mime';
import { describeComposed } from '../src/mime/describe';
import { generateCorpus } from '../src/sandbox/corpus';
import { toVendorMessage } from '../src/sandbox/message';
import { composed } from '../test/mime/real-world-mail';

/**
 * Micro-bench of describing (issue 27): `node -r tsx/cjs bench/describe.ts [passes]` times
 * describeRecord (the message_cache row a sync stores, from the message model), the same row
 * by composing the message, contentTree and buildMessage (what a body fetch composes: the tree
 * body sections are served from, the full message) over 2,000 sandbox
 * messages as a sync stores them, and prints the best pass of each in µs of CPU per message
 * (the process's: the machine may be shared). Warm: compare the figures of one run.
 */

const count = 2_000;

function corpus(): MailMessage[] {
  return generateCorpus({ seed: 5, owner: 'alice@sandbox.test', count, anchor: Date.UTC(2026, 0, 1), firstSeq: 1 }).map(
    (m) => {
      // only message/* bytes are read when composing (served inline); the rest stay empty
      const files = new Map(
        m.content
          .attachments()
          .map((a) => [
            a.meta.attachment_id,
            a.meta.mime_type.startsWith('message/') ? Buffer.concat([...a.chunks()]) : Buffer.alloc(0),
          ]),
      );
      return composed({ msg: toVendorMessage(m, ['body', 'attachments', 'headers', 'full_headers']), files });
    },
  );
}

function bestPass(passes: number, messages: MailMessage[], work: (m: MailMessage) => unknown): number {
  let best = Number.POSITIVE_INFINITY;
  for (let pass = 0; pass < passes; pass++) {
    const start = process.cpuUsage();
    for (const m of messages) work(m);
    const used = process.cpuUsage(start);
    best = Math.min(best, used.user + used.system);
  }
  return +(best / messages.length).toFixed(1);
}

const passes = Number(process.argv[2] ?? 16);
const messages = corpus();
const empty = new Map<string, Buffer>();
const report = {
  date: new Date().toISOString(),
  messages: messages.length,
  passes,
  describeRecordUs: bestPass(passes, messages, describeRecord),
  // the same row by composing the message (what the model path must equal)
  composedRecordUs: bestPass(passes, messages, (m) => metadataRecord(m, describeComposed(m))),
  // what a body fetch builds: the tree body sections are served from, and the full message
  contentTreeUs: bestPass(passes, messages, contentTree),
  buildMessageUs: bestPass(passes, messages, (m) => buildMessage(m, empty)),
};
process.stdout.write(`${JSON.stringify(report)}\n`);
