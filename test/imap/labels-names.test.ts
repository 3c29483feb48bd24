import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { VendorMessage } from '../../src/upstream/types';
import { control, mailbox, startHarness, vendorFolder, type Harness } from '../support/bridge-harness';
import { rawSession, type RawSession } from '../support/raw-session';

/**
 * Vendor labels whose names are not IMAP atoms, and mailbox names and keywords a client
 * sends that are not well-formed, as raw exchanges (RFC 3501 5.1.3, 9 "flag-keyword"):
 * nothing 8-bit in FLAGS, label folders named in modified UTF-7 (UTF-8 after ENABLE
 * UTF8=ACCEPT), and malformed names or keywords refused without a vendor call.
 */

let h: Harness;
let s: RawSession;
let target: VendorMessage;

/** What a latin1-decoding raw session shows for these UTF-8 bytes. */
const wire = (text: string) => Buffer.from(text).toString('latin1');

async function vendorLabels(): Promise<string[]> {
  const all = await control<{ messages: VendorMessage[] }>(
    h.sandbox,
    'GET',
    `/messages?mailbox=${encodeURIComponent(mailbox)}`,
  );
  return [...new Set(all.messages.flatMap((m) => m.labels))].sort();
}

beforeAll(async () => {
  h = await startHarness({ sandbox: { messages: 5 } });
  // the oldest INBOX message is UID 1 and sequence number 1
  [target] = await vendorFolder(h.sandbox, 'INBOX');
  await control(h.sandbox, 'POST', '/flags', { mailbox, message_uid: target.message_uid, labels: ['été', 'Later'] });
  s = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  expect(await s.run('SELECT INBOX')).toMatch(/ OK \[READ-WRITE\]/);
});

afterAll(async () => {
  s?.close();
  await h?.close();
});

describe('vendor labels that are not atoms', () => {
  test('FLAGS carry no 8-bit bytes: such a label is left out, an atom label is a keyword', async () => {
    const answer = await s.run('FETCH 1 FLAGS');
    expect(answer).toMatch(/^\* 1 FETCH \(FLAGS \([^)]*\bLater\b[^)]*\)\)\r\n/m);
    expect(answer).not.toMatch(/[^\x00-\x7f]/);
    expect(await s.run('SEARCH KEYWORD Later')).toMatch(/^\* SEARCH 1\b/m);
  });

  test('its Labels/ folder is named in modified UTF-7, and opens', async () => {
    const list = await s.run('LIST "" "Labels/*"');
    expect(list).toContain('"Labels/&AOk-t&AOk-"');
    expect(list).not.toMatch(/[^\x00-\x7f]/);
    expect(await s.run('EXAMINE "Labels/&AOk-t&AOk-"')).toContain('* 1 EXISTS');
  });

  test('after ENABLE UTF8=ACCEPT the folder name is UTF-8', async () => {
    const utf8 = await rawSession(h.bridge.ports.imap, mailbox, h.password);
    try {
      expect(await utf8.run('ENABLE UTF8=ACCEPT')).toContain('* ENABLED UTF8=ACCEPT');
      expect(await utf8.run('LIST "" "Labels/*"')).toContain(`"${wire('Labels/été')}"`);
    } finally {
      utf8.close();
    }
  });
});

describe('malformed names and keywords from clients', () => {
  test.each([
    ['an unterminated shift', '"Labels/&Jjo"'],
    ['ASCII in base64', '"Labels/&AGEAYgBj-"'],
    ['a bare &', '"Labels/a&b"'],
    ['8-bit bytes', `"${wire('Labels/né')}"`],
  ])('COPY to a name with %s is refused and creates no label', async (_what, name) => {
    const before = await vendorLabels();
    expect(await s.run(`COPY 1 ${name}`)).toMatch(/^t\d+ (NO|BAD) /m);
    expect(await vendorLabels()).toEqual(before);
  });

  test.each([
    ['an unterminated shift', '"Labels/&Jjo"'],
    ['ASCII in base64', '"Labels/&AGEAYgBj-"'],
    ['a bare &', '"Labels/a&b"'],
  ])('CREATE of a name with %s is refused and makes no folder', async (_what, name) => {
    const before = await s.run('LIST "" "*"');
    expect(await s.run(`CREATE ${name}`)).toMatch(/^t\d+ NO /m);
    expect(await s.run('LIST "" "*"')).toBe(before.replace(/^t\d+ /m, (t) => `t${Number(t.slice(1)) + 2} `));
  });

  test('a well-formed modified UTF-7 name creates the label it names', async () => {
    expect(await s.run('COPY 1 "Labels/&Jjo-"')).toMatch(/^t\d+ OK \[COPYUID /m);
    expect(await vendorLabels()).toContain('☺');
  });

  test('after ENABLE UTF8=ACCEPT, a name that is not UTF-8 is refused and creates no label', async () => {
    const utf8 = await rawSession(h.bridge.ports.imap, mailbox, h.password);
    try {
      await utf8.run('ENABLE UTF8=ACCEPT');
      await utf8.run('SELECT INBOX');
      const before = await vendorLabels();
      const malformed = Buffer.concat([Buffer.from('COPY 1 "Labels/'), Buffer.from([0xff, 0xfe]), Buffer.from('x"')]);
      expect(await utf8.run(malformed)).toMatch(/^t\d+ (NO|BAD) /m);
      expect(await vendorLabels()).toEqual(before);
    } finally {
      utf8.close();
    }
  });

  test('SELECT of a malformed name is NO, as for a missing folder', async () => {
    expect(await s.run('EXAMINE "Labels/&Jjo"')).toMatch(/^t\d+ NO /m);
    await s.run('SELECT INBOX');
  });

  test('STORE of a keyword that is not an atom is refused and changes nothing at the vendor', async () => {
    const before = await vendorLabels();
    expect(await s.run(`STORE 1 +FLAGS (${wire('café')})`)).toMatch(/^t\d+ (NO|BAD) /m);
    expect(await vendorLabels()).toEqual(before);
    expect(await s.run('FETCH 1 FLAGS')).not.toMatch(/[^\x00-\x7f]/);
  });
});
