import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { control, mailbox, startHarness, type Harness } from '../support/bridge-harness';
import type { VendorMessage } from '../../src/upstream/types';

const run = promisify(execFile);
let h: Harness;

beforeAll(async () => {
  requireTools('python3');
  h = await startHarness({ config: { listen: { host: '127.0.0.1', imapPort: 0, imapsPort: 0, smtpPort: 0 } } });
});

afterAll(async () => {
  await h?.close();
});

/** A Python imaplib session (STARTTLS, LOGIN, SELECT, SEARCH, FETCH, STORE); prints JSON. */
const script = `
import imaplib, json, ssl, sys
port, user, password = int(sys.argv[1]), sys.argv[2], sys.argv[3]
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
m = imaplib.IMAP4('127.0.0.1', port)
m.starttls(ssl_context=ctx)
m.login(user, password)
typ, data = m.select('INBOX')
exists = int(data[0])
typ, unseen = m.uid('SEARCH', None, 'UNSEEN')
unseen = [int(x) for x in unseen[0].split()]
typ, data = m.uid('FETCH', '1:*', '(UID RFC822.SIZE FLAGS)')
rows = [d for d in data if isinstance(d, bytes)]
first = unseen[0]
typ, body = m.uid('FETCH', str(first), '(BODY.PEEK[HEADER.FIELDS (SUBJECT MESSAGE-ID)])')
header = body[0][1].decode()
typ, st = m.uid('STORE', str(first), '+FLAGS', '(\\\\Seen)')
m.logout()
print(json.dumps({'exists': exists, 'unseen': unseen, 'rows': len(rows), 'header': header, 'store': st[0].decode()}))
`;

test('python imaplib over STARTTLS reads, searches and flags', async () => {
  const { stdout } = await run('python3', ['-c', script, String(h.bridge.ports.imap), mailbox, h.password], {
    timeout: 60_000,
  });
  const out = JSON.parse(stdout) as { exists: number; unseen: number[]; rows: number; header: string; store: string };
  const dump = await control<{ messages: VendorMessage[] }>(
    h.sandbox,
    'GET',
    `/messages?mailbox=${encodeURIComponent(mailbox)}&folder=INBOX`,
  );
  expect(out.exists).toBe(dump.messages.length);
  expect(out.rows).toBe(dump.messages.length);
  expect(out.header).toMatch(/Message-ID: </i);
  expect(out.store).toContain('\\Seen');
  // the message came from UNSEEN and the vendor now has it read
  const messageId = /Message-ID: (<[^>]+>)/i.exec(out.header)?.[1];
  expect(out.unseen.length).toBe(dump.messages.filter((m) => !m.is_read).length + 1);
  expect(dump.messages.find((m) => m.message_id === messageId)?.is_read).toBe(true);
});

test('wrong bridge password is refused and the vendor token is never accepted as a password', async () => {
  const tokens = h.sandbox.issueTokens(mailbox);
  const attempt = (password: string) =>
    run('python3', [
      '-c',
      `import imaplib,sys\nm=imaplib.IMAP4('127.0.0.1',${h.bridge.ports.imap})\n` +
        "try:\n  m.login(sys.argv[1], sys.argv[2]); print('OK')\nexcept imaplib.IMAP4.error as e: print('NO', e)",
      mailbox,
      password,
    ]);
  expect((await attempt('not-the-password')).stdout).toMatch(/^NO .*AUTHENTICATIONFAILED/);
  expect((await attempt(tokens.accessToken)).stdout).toMatch(/^NO/);
});

test('implicit TLS port with AUTHENTICATE PLAIN', async () => {
  const py = [
    'import imaplib, ssl, sys',
    'ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE',
    'm = imaplib.IMAP4_SSL("127.0.0.1", int(sys.argv[1]), ssl_context=ctx)',
    'typ, _ = m.authenticate("PLAIN", lambda _: ("\\0" + sys.argv[2] + "\\0" + sys.argv[3]).encode())',
    'typ, data = m.status("INBOX", "(MESSAGES UIDNEXT)")',
    'print(typ, data[0].decode())',
    'm.logout()',
  ].join('\n');
  const { stdout } = await run('python3', ['-c', py, String(h.bridge.ports.imaps), mailbox, h.password], {
    timeout: 60_000,
  });
  const dump = await control<{ messages: VendorMessage[] }>(
    h.sandbox,
    'GET',
    `/messages?mailbox=${encodeURIComponent(mailbox)}&folder=INBOX`,
  );
  expect(stdout).toMatch(new RegExp(`^OK "?INBOX"? \\(MESSAGES ${dump.messages.length} UIDNEXT \\d+\\)`));
});

/** Python imaplib organising: UID MOVE, COPY into a label folder, EXPUNGE there, refused APPEND and CREATE. */
const organise = `
import imaplib, json, sys
port, user, password, moving, labelling = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
m = imaplib.IMAP4('127.0.0.1', port)
m.login(user, password)
m.select('INBOX')
def uid_of(message_id):
    typ, data = m.uid('SEARCH', None, 'HEADER', 'Message-ID', '"%s"' % message_id)
    return data[0].split()[0].decode()
out = {}
# the tagged line, where COPYUID is (imaplib's uid() drops it)
typ, data = m._simple_command('UID', 'MOVE', uid_of(moving), 'Archive')
out['move'] = [typ, data[0].decode()]
typ, data = m._simple_command('UID', 'COPY', uid_of(labelling), '"Labels/From imaplib"')
out['copy'] = [typ, data[0].decode()]
typ, data = m.select('"Labels/From imaplib"')
out['labelExists'] = int(data[0])
typ, data = m.uid('SEARCH', None, 'ALL')
label_uid = data[0].split()[0].decode()
m.uid('STORE', label_uid, '+FLAGS', '(\\\\Deleted)')
typ, data = m.uid('EXPUNGE', label_uid)
out['expunge'] = typ
typ, data = m.append('INBOX', None, None, b'From: a@b.test\\r\\nSubject: x\\r\\n\\r\\nx\\r\\n')
out['append'] = typ
typ, data = m.create('Projects')
out['create'] = [typ, data[0].decode()]
m.logout()
print(json.dumps(out))
`;
import { requireTools } from '../support/tools';

test('python imaplib organises: UID MOVE, COPY to a label folder, EXPUNGE there; APPEND, CREATE refused', async () => {
  const inbox = (
    await control<{ messages: VendorMessage[] }>(
      h.sandbox,
      'GET',
      `/messages?mailbox=${encodeURIComponent(mailbox)}&folder=INBOX`,
    )
  ).messages;
  const [moving, labelling] = inbox.slice(-2);
  const { stdout } = await run(
    'python3',
    ['-c', organise, String(h.bridge.ports.imap), mailbox, h.password, moving.message_id, labelling.message_id],
    { timeout: 60_000 },
  );
  const out = JSON.parse(stdout) as {
    move: string[];
    copy: string[];
    labelExists: number;
    expunge: string;
    append: string;
    create: string[];
  };
  expect(out.move[0]).toBe('OK');
  expect(out.move[1]).toMatch(/COPYUID \d+ \d+ \d+/);
  expect(out.copy[0]).toBe('OK');
  expect(out.copy[1]).toMatch(/COPYUID \d+ \d+ \d+/);
  expect(out.labelExists).toBe(1);
  expect(out.expunge).toBe('OK');
  expect(out.append).toBe('NO');
  expect(out.create).toEqual([
    'NO',
    expect.stringMatching(/cannot create folders; a label folder can be created as Labels\/<name>/),
  ]);

  const all = (
    await control<{ messages: VendorMessage[] }>(h.sandbox, 'GET', `/messages?mailbox=${encodeURIComponent(mailbox)}`)
  ).messages;
  const byUid = new Map(all.map((m) => [m.message_uid, m]));
  expect(byUid.get(moving.message_uid)?.folders).toEqual(['Archive']);
  // labelled by COPY, unlabelled by EXPUNGE in the label folder, never moved or deleted
  expect(byUid.get(labelling.message_uid)?.folders).toEqual(['INBOX']);
  expect(byUid.get(labelling.message_uid)?.labels).not.toContain('From imaplib');
  expect(all.filter((m) => m.subject === 'x')).toHaveLength(0);
});
