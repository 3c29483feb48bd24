import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { control, mailbox, startHarness, vendorFolder, type Harness } from '../support/bridge-harness';
import { requireTools } from '../support/tools';
import type { VendorMessage } from '../../src/upstream/types';

/**
 * Every message the bridge serves, read as strict parsers read it: Python's email package with
 * its defects collected part by part, and mailparser. Also what the vendor's header data adds
 * (Authentication-Results, spam score, Reply-To, List-Id, the original Date).
 */

const run = promisify(execFile);
const folders = ['INBOX', 'Sent', 'Drafts', 'Trash', 'Spam', 'Archive'];
let h: Harness;
let dir: string;
/** folder -> served messages (file names = folder + UID) */
let served: Array<{ folder: string; uid: number; file: string; defects: string[] }>;

/** A forwarded message, as a client attaches it (message/rfc822): an 8-bit body, a file name to encode. */
const forwarded = [
  'From: =?UTF-8?Q?J=C3=BCrgen?= <juergen@example.de>',
  'To: alice@sandbox.test',
  'Subject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?=',
  'Date: Tue, 3 Mar 2026 09:15:00 +0100',
  'Message-ID: <inner.1@example.de>',
  'MIME-Version: 1.0',
  'Content-Type: text/plain; charset=utf-8',
  'Content-Transfer-Encoding: 8bit',
  '',
  'Hallo Alice,',
  'viele Grüße',
  '',
].join('\n');

/** Downloads every folder with imaplib and parses each message with email.policy.default. */
const script = `
import email, email.policy, imaplib, json, os, re, sys
port, user, password, out, folders = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
m = imaplib.IMAP4('127.0.0.1', port)
m.login(user, password)
result = []
for folder in folders.split(','):
    m.select(folder, readonly=True)
    typ, data = m.uid('FETCH', '1:*', '(BODY.PEEK[])')
    for item in data:
        if not isinstance(item, tuple):
            continue
        uid = int(re.search(rb'UID (\\d+)', item[0]).group(1))
        raw = item[1]
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        defects = []
        for part in msg.walk():
            defects += [type(d).__name__ for d in part.defects]
            for key in part.keys():
                defects += ['%s: %s' % (key, type(d).__name__) for d in getattr(part[key], 'defects', [])]
            if part.get_content_maintype() == 'message':
                cte = part.get('Content-Transfer-Encoding', '7bit').lower()
                if cte not in ('7bit', '8bit', 'binary'):
                    defects.append('%s with Content-Transfer-Encoding %s' % (part.get_content_type(), cte))
            elif not part.is_multipart():
                part.get_content()
        file = os.path.join(out, '%s-%d.eml' % (folder.replace('/', '_'), uid))
        open(file, 'wb').write(raw)
        result.append({'folder': folder, 'uid': uid, 'file': file, 'defects': defects})
m.logout()
print(json.dumps(result))
`;

beforeAll(async () => {
  requireTools('python3');
  h = await startHarness();
  await control(h.sandbox, 'POST', '/inject', {
    mailbox,
    message: {
      from: 'Bob <bob@example.com>',
      subject: 'Fwd: Grüße',
      text: 'See the forwarded message.',
      attachments: [
        { filename: 'Grüße.eml', contentType: 'message/rfc822', content: Buffer.from(forwarded).toString('base64') },
      ],
    },
  });
  dir = fs.mkdtempSync(path.join(h.stateDir, 'served-'));
  const args = [String(h.bridge.ports.imap), mailbox, h.password, dir, folders.join(',')];
  const { stdout } = await run('python3', ['-c', script, ...args], {
    timeout: 120_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  served = JSON.parse(stdout);
}, 180_000);

afterAll(async () => {
  await h?.close();
});

const readServed = (folder: string, uid: number) =>
  fs.readFileSync(served.find((s) => s.folder === folder && s.uid === uid)!.file);

describe('strict parsers', () => {
  test('Python finds no defect in any served message', async () => {
    const total = (await Promise.all(folders.map((f) => vendorFolder(h.sandbox, f)))).flat().length;
    expect(served.length).toBe(total);
    expect(served.filter((s) => s.defects.length)).toEqual([]);
  });

  test('mailparser reads every attachment the vendor lists, message/* ones as 7bit or 8bit', async () => {
    const inbox = await vendorFolder(h.sandbox, 'INBOX');
    const reports = inbox.filter((m) => m.attachments?.some((a) => a.mime_type.startsWith('message/')));
    expect(reports.length).toBeGreaterThanOrEqual(3); // bounce, complaint, forward
    for (const s of served) {
      const mail = await simpleParser(fs.readFileSync(s.file));
      const vendor = inbox.find((m) => m.message_id === mail.messageId);
      if (!vendor) continue;
      expect(mail.attachments.map((a) => a.filename)).toEqual((vendor.attachments ?? []).map((a) => a.file_name));
      const raw = fs.readFileSync(s.file, 'latin1');
      expect(raw).not.toMatch(/Content-Type: message\/[^\r]*\r\nContent-Transfer-Encoding: base64/i);
    }
  });
});

describe('headers from the vendor data', () => {
  test('Authentication-Results names the vendor; the spam score and flag follow spam_score', async () => {
    const spam = await withHeaders('Spam');
    const inbox = await withHeaders('INBOX');
    for (const s of served.filter((x) => x.folder === 'INBOX' || x.folder === 'Spam')) {
      const mail = await simpleParser(readServed(s.folder, s.uid));
      const vendor = [...inbox, ...spam].find((m) => m.message_id === mail.messageId)!;
      const headers = vendor.headers!;
      const verdict = (ok: boolean) => (ok ? 'pass' : 'fail');
      expect(mail.headers.get('authentication-results')).toBe(
        `127.0.0.1; spf=${verdict(headers.spf_success)}; dkim=${verdict(headers.dkim_success)}; dmarc=${verdict(headers.dmarc_success)}`,
      );
      expect(mail.headers.get('x-spam-score')).toBe(String(headers.spam_score));
      expect(mail.headers.get('x-spam-flag')).toBe(headers.spam_score >= 5 ? 'YES' : undefined);
    }
  });

  test('Reply-To, List-Id and the Date come from the original header', async () => {
    const inbox = await withHeaders('INBOX');
    let lists = 0;
    for (const s of served.filter((x) => x.folder === 'INBOX')) {
      const raw = readServed(s.folder, s.uid);
      const mail = await simpleParser(raw);
      const vendor = inbox.find((m) => m.message_id === mail.messageId);
      if (!vendor) continue;
      const original = vendor.full_headers?.headers_json as Record<string, string>;
      expect(/^Date: (.*)$/m.exec(raw.toString('latin1'))?.[1]).toBe(original.Date);
      if (!original['List-Id']) continue;
      lists++;
      expect(mail.replyTo?.text).toBe(original['Reply-To']);
      expect(/^List-ID: (.*)$/m.exec(raw.toString('latin1'))?.[1]).toBe(original['List-Id']);
    }
    expect(lists).toBeGreaterThan(0);
  });
});

/** A sandbox folder with the header parts of get_messages. */
async function withHeaders(folder: string): Promise<VendorMessage[]> {
  const q = `mailbox=${encodeURIComponent(mailbox)}&folder=${folder}&include=attachments,headers,full_headers`;
  return (await control<{ messages: VendorMessage[] }>(h.sandbox, 'GET', `/messages?${q}`)).messages;
}
