import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { mailbox, startHarness, vendorFolder, type Harness } from '../support/bridge-harness';

const run = promisify(execFile);
let h: Harness;
let dir: string;

beforeAll(async () => {
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
    ].join('\n'),
  );
  fs.mkdirSync(path.join(dir, 'state'), { recursive: true });
});

afterAll(async () => {
  await h?.close();
});

function maildirCount(): number {
  const inbox = path.join(dir, 'mail', 'INBOX');
  return ['cur', 'new'].reduce((n, d) => n + (fs.existsSync(path.join(inbox, d)) ? fs.readdirSync(path.join(inbox, d)).length : 0), 0);
}

async function mbsync(): Promise<string> {
  const { stdout, stderr } = await run('mbsync', ['-c', path.join(dir, 'mbsyncrc'), '-a'], { timeout: 120_000 });
  return stdout + stderr;
}

test('mbsync pulls the whole INBOX over STARTTLS, then picks up only what is new', async () => {
  await mbsync();
  const vendor = await vendorFolder(h.sandbox, 'INBOX');
  expect(maildirCount()).toBe(vendor.length);
  const sample = fs.readdirSync(path.join(dir, 'mail', 'INBOX', 'cur'))[0] ?? fs.readdirSync(path.join(dir, 'mail', 'INBOX', 'new'))[0];
  expect(sample).toBeTruthy();

  await fetch(`${h.sandbox.urls.control}/inject`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ mailbox, message: { from: 'late@example.org', to: mailbox, subject: 'After the first sync', text: 'new' } }),
  });
  await h.bridge.pollers[0].tick();
  await mbsync();
  expect(maildirCount()).toBe(vendor.length + 1);
}, 120_000);
