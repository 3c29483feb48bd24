import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, test } from 'vitest';
import { mailbox, useImapSession, vendorFolder } from '../support/bridge-harness';
import { requireTools } from '../support/tools';

beforeAll(() => requireTools('neomutt', 'script'));

/**
 * NeoMutt (Debian's 2022 build has no MOVE) saves a message to another folder the classic
 * way: UID COPY, \Deleted, EXPUNGE. With the default config that ends as one vendor move.
 */

const run = promisify(execFile);
const s = useImapSession();

/** Runs NeoMutt on a pseudo-terminal with keystrokes pushed from its config, until it quits. */
async function neomutt(keys: string): Promise<string> {
  const dir = fs.mkdtempSync(path.join(s.h.stateDir, 'neomutt-'));
  const rc = path.join(dir, 'neomuttrc');
  fs.writeFileSync(
    rc,
    [
      `set folder="imap://${encodeURIComponent(mailbox)}@127.0.0.1:${s.h.bridge.ports.imap}/"`,
      `set imap_pass="${s.h.password}"`,
      'set spool_file="+INBOX"',
      // plaintext login is accepted from loopback only
      'set ssl_starttls=no',
      'set ssl_force_tls=no',
      'set confirm_append=no',
      'set delete=yes',
      'set move=no',
      'set wait_key=no',
      `set debug_file="${path.join(dir, 'log')}"`,
      'set debug_level=2',
      `push "${keys}"`,
      '',
    ].join('\n'),
  );
  await run('script', ['-qec', `neomutt -n -F ${rc}`, '/dev/null'], {
    timeout: 60_000,
    env: { ...process.env, TERM: 'xterm', HOME: dir },
  });
  return fs
    .readdirSync(dir)
    .filter((f) => f.startsWith('log'))
    .map((f) => fs.readFileSync(path.join(dir, f), 'latin1'))
    .join('\n');
}

describe('NeoMutt', () => {
  test('save-message to another folder moves the message once at the vendor', async () => {
    const [target] = await vendorFolder(s.h.sandbox, 'INBOX');
    const inboxBefore = (await vendorFolder(s.h.sandbox, 'INBOX')).length;
    const archiveBefore = (await vendorFolder(s.h.sandbox, 'Archive')).length;
    const log = await neomutt(
      `<tag-pattern>~i '${target.message_id}'<enter><tag-prefix><save-message>=Archive<enter><sync-mailbox><quit>`,
    );
    expect(log).toContain('UID COPY');
    expect(log).toMatch(/EXPUNGE/);

    const inbox = await vendorFolder(s.h.sandbox, 'INBOX');
    const archive = await vendorFolder(s.h.sandbox, 'Archive');
    expect(inbox.some((m) => m.message_uid === target.message_uid)).toBe(false);
    expect(archive.filter((m) => m.message_uid === target.message_uid)).toHaveLength(1);
    expect(inbox.length).toBe(inboxBefore - 1);
    expect(archive.length).toBe(archiveBefore + 1);
    // nothing went to Trash on the way
    expect((await vendorFolder(s.h.sandbox, 'Trash')).some((m) => m.message_uid === target.message_uid)).toBe(false);

    // what an IMAP client sees now agrees with the vendor
    expect((await s.client.mailboxOpen('INBOX')).exists).toBe(inbox.length);
    expect((await s.client.mailboxOpen('Archive')).exists).toBe(archive.length);
  });
});
