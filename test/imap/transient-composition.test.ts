import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { control, mailbox, startHarness, type Harness } from '../support/bridge-harness';
import { ManualClock } from '../support/manual-clock';
import { rawSession } from '../support/raw-session';

/**
 * A message is composed once and its bytes never change afterwards, so what a composition is
 * made of must not depend on a bad second of the vendor: a message/* attachment whose download
 * fails transiently is never composed "as a file"; the command fails and the next one composes.
 */

const report = 'Feedback-Type: abuse\r\nUser-Agent: ExampleFBL/1.0\r\nVersion: 1\r\nSource-IP: 198.51.100.7\r\n';

let h: Harness;
/** The retries' backoff while the vendor fails: no real second waited out. */
const vendorClock = new ManualClock();

beforeAll(async () => {
  h = await startHarness({ sandbox: { messages: 5 }, vendorClock });
});

afterAll(async () => {
  await h?.close();
  vendorClock.stop();
});

/** A complaint with its report as a message/feedback-report part, in `folder`. */
async function complaint(folder: string): Promise<void> {
  await control(h.sandbox, 'POST', '/inject', {
    mailbox,
    message: {
      from: 'Feedback Loop <fbl@feedback.example>',
      subject: 'Abuse report',
      text: 'A complaint about a message from 198.51.100.7.',
      folder,
      attachments: [
        {
          filename: 'report.txt',
          contentType: 'message/feedback-report',
          content: Buffer.from(report).toString('base64'),
        },
      ],
    },
  });
}

/** Every message of `folder` as `UID FETCH 1:* BODY.PEEK[]` answers it, UIDs included. */
async function fetchAll(port: number, password: string, folder: string): Promise<string> {
  const s = await rawSession(port, mailbox, password);
  try {
    expect(await s.run(`EXAMINE ${folder}`)).toMatch(/^t\d+ OK/m);
    const answer = await s.run('UID FETCH 1:* BODY.PEEK[]');
    expect(answer).toMatch(/^t\d+ OK/m);
    return answer;
  } finally {
    s.close();
  }
}

describe('a transient failure of a composition input', () => {
  test.each([
    ['answered 503', 'Archive', { unavailableRate: 1 }],
    ['cut off mid-body', 'Trash', { truncateRate: 1 }],
  ])(
    '(%s) fails the command, stores nothing, and the next fetch gives the bytes of a fault-free bridge',
    async (_, folder, faults) => {
      await complaint(folder);
      h.sandbox.setFaults({ routes: ['GET /v1/raw'], ...faults });
      const s = await rawSession(h.bridge.ports.imap, mailbox, h.password);
      try {
        expect(await s.run(`EXAMINE ${folder}`)).toMatch(/^t\d+ NO \[UNAVAILABLE\]/m);
      } finally {
        h.sandbox.setFaults({});
        s.close();
      }
      const after = await fetchAll(h.bridge.ports.imap, h.password, folder);
      expect(after).toContain('Content-Type: message/feedback-report');

      const faultFree = await startHarness({ vendor: h.sandbox, vendorClock });
      try {
        expect(after).toBe(await fetchAll(faultFree.bridge.ports.imap, faultFree.password, folder));
      } finally {
        await faultFree.close();
      }
    },
  );
});
