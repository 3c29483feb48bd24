import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { mailbox, startHarness, vendorFolder, type Harness } from '../support/bridge-harness';
import { requireTools } from '../support/tools';

const run = promisify(execFile);
let h: Harness;
let dir: string;

beforeAll(async () => {
  requireTools('mbsync');
  h = await startHarness();
  dir = path.join(h.stateDir, 'mbsync');
  fs.mkdirSync(path.join(dir, 'mail'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'pass'), h.password);
  fs.writeFileSync(
    path.join(dir, 'mbsyncrc'),
    [
      'IMAPAccount bridge',
      'Host 127.0.0.1',
      `Port ${h.bridge.ports.imap}`,
      `User ${mailbox}`,
      `PassCmd "cat ${path.join(dir, 'pass')}"`,
      'SSLType STARTTLS',
      // the bridge's self-signed certificate, trusted explicitly
      `CertificateFile ${path.join(h.stateDir, 'tls-cert.pem')}`,
      'SSLVersions TLSv1.2 TLSv1.3',
      '',
      'IMAPStore remote',
      'Account bridge',
      '',
      'MaildirStore local',
      `Path ${path.join(dir, 'mail')}/`,
      `Inbox ${path.join(dir, 'mail', 'INBOX')}`,
      'SubFolders Verbatim',
      '',
      'Channel inbox',
      'Far :remote:',
      'Near :local:',
      'Patterns INBOX',
      'Create Near',
      'Sync Pull',
      `SyncState ${path.join(dir, 'state')}/`,
      '',
      // two-way: flags and deletions made locally go up, changes made in webmail come down
      'Channel twoway',
      'Far :remote:',
      'Near :local:',
      'Patterns Archive',
      'Create Near',
      'Sync All',
      'Expunge Both',
      `SyncState ${path.join(dir, 'state')}/`,
      '',
    ].join('\n'),
  );
  fs.mkdirSync(path.join(dir, 'state'), { recursive: true });
});

afterAll(async () => {
  await h?.close();
});

function maildirCount(): number {
  const inbox = path.join(dir, 'mail', 'INBOX');
  return ['cur', 'new'].reduce(
    (n, d) => n + (fs.existsSync(path.join(inbox, d)) ? fs.readdirSync(path.join(inbox, d)).length : 0),
    0,
  );
}

async function mbsync(channel = 'inbox'): Promise<string> {
  const { stdout, stderr } = await run('mbsync', ['-c', path.join(dir, 'mbsyncrc'), channel], { timeout: 120_000 });
  return stdout + stderr;
}

/** Maildir files of a folder, with their Message-ID and maildir flags. */
function maildir(folder: string): Array<{ file: string; messageId: string; flags: string }> {
  const root = path.join(dir, 'mail', folder);
  return ['cur', 'new'].flatMap((sub) =>
    fs.existsSync(path.join(root, sub))
      ? fs.readdirSync(path.join(root, sub)).map((name) => {
          const file = path.join(root, sub, name);
          const messageId = /^message-id:\s*(<[^>]+>)/im.exec(fs.readFileSync(file, 'latin1'))?.[1] ?? '';
          return { file, messageId, flags: /:2,([A-Z]*)$/.exec(name)?.[1] ?? '' };
        })
      : [],
  );
}

/** Sets maildir flags the way a mail reader does: rename into cur/ with the new info suffix. */
function setMaildirFlags(file: string, flags: string): void {
  const name = path.basename(file).replace(/:2,[A-Z]*$/, '');
  fs.renameSync(file, path.join(path.dirname(path.dirname(file)), 'cur', `${name}:2,${flags}`));
}

test('mbsync pulls the whole INBOX over STARTTLS, then picks up only what is new', async () => {
  await mbsync();
  const vendor = await vendorFolder(h.sandbox, 'INBOX');
  expect(maildirCount()).toBe(vendor.length);
  const sample =
    fs.readdirSync(path.join(dir, 'mail', 'INBOX', 'cur'))[0] ??
    fs.readdirSync(path.join(dir, 'mail', 'INBOX', 'new'))[0];
  expect(sample).toBeTruthy();

  await fetch(`${h.sandbox.urls.control}/inject`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      mailbox,
      message: { from: 'late@example.org', to: mailbox, subject: 'After the first sync', text: 'new' },
    }),
  });
  await h.bridge.pollers[0].tick();
  await mbsync();
  expect(maildirCount()).toBe(vendor.length + 1);
}, 120_000);

async function webmailFlags(messageUid: string, flags: { is_read?: boolean; is_starred?: boolean }): Promise<void> {
  const res = await fetch(`${h.sandbox.urls.control}/flags`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ mailbox, message_uid: messageUid, ...flags }),
  });
  expect(res.ok).toBe(true);
}

test('mbsync two-way: local flags and deletions reach the vendor, webmail changes come back', async () => {
  const vendor = await vendorFolder(h.sandbox, 'Archive');
  expect(vendor.length).toBeGreaterThanOrEqual(3);
  const [read, trashed, starredInWebmail] = vendor;
  for (const m of [read, trashed, starredInWebmail])
    await webmailFlags(m.message_uid, { is_read: false, is_starred: false });
  await mbsync('twoway');
  expect(maildir('Archive').length).toBe(vendor.length);
  const fileOf = (messageId: string) => maildir('Archive').find((f) => f.messageId === messageId)!;

  setMaildirFlags(fileOf(read.message_id).file, 'FS');
  setMaildirFlags(fileOf(trashed.message_id).file, 'ST');
  await mbsync('twoway');
  const after = await vendorFolder(h.sandbox, 'Archive');
  const readNow = after.find((m) => m.message_uid === read.message_uid)!;
  expect(readNow.is_read && readNow.is_starred).toBe(true);
  expect(after.some((m) => m.message_uid === trashed.message_uid)).toBe(false);
  expect((await vendorFolder(h.sandbox, 'Trash')).some((m) => m.message_uid === trashed.message_uid)).toBe(true);
  expect(maildir('Archive').some((f) => f.messageId === trashed.message_id)).toBe(false);

  await webmailFlags(starredInWebmail.message_uid, { is_starred: true });
  await h.bridge.pollers[0].tick();
  await mbsync('twoway');
  expect(fileOf(starredInWebmail.message_id).flags).toContain('F');
  expect(maildir('Archive').length).toBe(vendor.length - 1);
}, 120_000);
