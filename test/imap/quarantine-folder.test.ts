import type { ImapFlow } from 'imapflow';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { control, type Harness, mailbox, startHarness } from '../support/bridge-harness';
import { openDatabase } from '../../src/store';
import { QuarantineStore } from '../../src/store/quarantine';
import { rawSession } from '../support/raw-session';

/** The Quarantine mailbox (issue 15): held submissions, released by MOVE/COPY or $Release, expiring. */

const threeHours = 3 * 60 * 60 * 1000;
let clockOffset = 0;
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ bridge: { now: () => Date.now() + clockOffset } });
});
afterAll(async () => {
  await h?.close();
});

/** A submission through the bridge's SMTP that the sandbox's spam filter holds; its quarantine id. */
async function submitSpam(subject: string, to = 'bob@sandbox.test'): Promise<string> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: h.bridge.ports.smtp,
    secure: false,
    requireTLS: true,
    tls: { rejectUnauthorized: false },
    auth: { user: mailbox, pass: h.password },
  });
  try {
    await transport.sendMail({
      from: mailbox,
      to,
      subject,
      text: `You are a lottery winner: ${subject}`,
      headers: { 'X-Test': subject },
    });
    throw new Error('the submission was not held');
  } catch (err) {
    const id = /quarantine_id (q_\w+)/.exec((err as { response?: string }).response ?? '')?.[1];
    if (!id) throw err;
    return id;
  } finally {
    transport.close();
  }
}

const exists = (c: ImapFlow) => (c.mailbox ? c.mailbox.exists : 0);

async function quarantined(client: ImapFlow): Promise<Array<{ uid: number; subject: string; source: string }>> {
  const lock = await client.getMailboxLock('Quarantine');
  try {
    const out: Array<{ uid: number; subject: string; source: string }> = [];
    if (!exists(client)) return out;
    for await (const m of client.fetch('1:*', { uid: true, envelope: true, source: true })) {
      out.push({ uid: m.uid, subject: m.envelope?.subject ?? '', source: (m.source as Buffer).toString() });
    }
    return out;
  } finally {
    lock.release();
  }
}

const vendorInbox = async (to: string) =>
  (
    await control<{ messages: Array<{ subject: string }> }>(
      h.sandbox,
      'GET',
      `/messages?mailbox=${encodeURIComponent(to)}&folder=INBOX`,
    )
  ).messages.map((m) => m.subject);

test('an account never held shows no Quarantine mailbox', async () => {
  const c = await h.client();
  try {
    expect((await c.list()).map((m) => m.path)).not.toContain('Quarantine');
  } finally {
    await c.logout();
  }
});

test('held submissions are listed as submitted, with the hold and its expiry in headers; APPEND is refused', async () => {
  const id = await submitSpam('lottery one');
  const c = await h.client();
  try {
    expect((await c.list()).map((m) => m.path)).toContain('Quarantine');
    const [held] = await quarantined(c);
    expect(held.subject).toBe('lottery one');
    expect(held.source).toMatch(new RegExp(`^X-Mailbridge-Quarantine-Id: ${id}\r\n`));
    expect(held.source).toContain('X-Mailbridge-Quarantine-Recipient: bob@sandbox.test\r\n');
    const expires = /X-Mailbridge-Quarantine-Expires: (.+)\r\n/.exec(held.source)?.[1] ?? '';
    expect(Math.abs(Date.parse(expires) - (Date.now() + threeHours))).toBeLessThan(60_000);
    expect(held.source).toContain('X-Test: lottery one');
    expect(held.source).toContain('You are a lottery winner: lottery one');
    await expect(c.append('Quarantine', 'Subject: x\r\n\r\nx\r\n')).rejects.toThrow();
    // it is the bridge's mailbox, not a label: RENAME and DELETE are refused with the reason
    for (const change of [c.mailboxRename('Quarantine', 'Held'), c.mailboxDelete('Quarantine')])
      await expect(change).rejects.toMatchObject({
        serverResponseCode: 'CANNOT',
        responseText: expect.stringMatching(
          /^Quarantine shows the submissions the vendor held and cannot be (renamed|deleted)$/,
        ),
      });
    expect(await c.status('Quarantine', { messages: true })).toMatchObject({ messages: 1 });
  } finally {
    await c.logout();
  }
});

test('MOVE to INBOX releases through the vendor; MOVE elsewhere is refused', async () => {
  const c = await h.client();
  try {
    await c.mailboxOpen('Quarantine');
    const s = await rawSession(h.bridge.ports.imap, mailbox, h.password);
    expect(await s.run('SELECT Quarantine')).toMatch(/\* 1 EXISTS/);
    expect(await s.run('UID MOVE 1:* Archive')).toMatch(
      /t\d+ NO \[CANNOT\] MOVE to Archive is not possible in Quarantine/,
    );
    const moved = await s.run('UID MOVE 1:* INBOX');
    expect(moved).toMatch(/\* 1 EXPUNGE\r\nt\d+ OK/);
    expect(moved).not.toContain('COPYUID');
    s.close();
    expect(await vendorInbox('bob@sandbox.test')).toContain('lottery one');
    expect(await quarantined(c)).toEqual([]);
  } finally {
    await c.logout();
  }
});

test('STORE +FLAGS ($Release) releases; an IDLE session is told of the EXPUNGE', async () => {
  await submitSpam('lottery two');
  const watcher = await h.client();
  const c = await h.client();
  try {
    await watcher.mailboxOpen('Quarantine');
    expect(exists(watcher)).toBe(1);
    const expunged = new Promise<number | undefined>((resolve) => watcher.on('expunge', (e) => resolve(e.seq)));
    void watcher.idle();
    await c.mailboxOpen('Quarantine');
    expect(await c.messageFlagsAdd('1', ['$Release'])).toBe(true);
    expect(await expunged).toBe(1);
    expect(await vendorInbox('bob@sandbox.test')).toContain('lottery two');
  } finally {
    await c.logout();
    await watcher.logout();
  }
});

test('a release the vendor refuses is NO with its reason; the record follows and an expired one leaves', async () => {
  const id = await submitSpam('lottery three');
  const s = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  try {
    expect(await s.run('SELECT Quarantine')).toMatch(/\* 1 EXISTS/);
    // the vendor's 3 hours are over, the bridge's clock not yet: the vendor says so
    await control(h.sandbox, 'POST', '/clock/advance', { ms: threeHours + 1000 });
    const refused = await s.run('UID STORE 1:* +FLAGS ($Release)');
    expect(refused).toMatch(
      /t\d+ NO \[CANNOT\] Could not release q_\w+: expired: the vendor keeps held emails for 3 hours/,
    );
    const log = openDatabase(h.stateDir);
    try {
      expect(new QuarantineStore(log).get(id)?.status).toBe('expired');
    } finally {
      log.close();
    }
    // UID STORE may carry the EXPUNGE (RFC 3501 7.4.1), or the next command does
    expect(`${refused}${await s.run('NOOP')}`.match(/\* 1 EXPUNGE/g)).toHaveLength(1);
  } finally {
    s.close();
  }
});

test('held records disappear when they expire, at the next poll', async () => {
  await submitSpam('lottery four');
  const s = await rawSession(h.bridge.ports.imap, mailbox, h.password);
  try {
    expect(await s.run('SELECT Quarantine')).toMatch(/\* 1 EXISTS/);
    clockOffset += threeHours + 1000;
    await h.bridge.pollers[0].tick();
    expect(await s.run('NOOP')).toMatch(/\* 1 EXPUNGE/);
    expect(await s.run('STATUS Quarantine (MESSAGES)')).toMatch(/MESSAGES 0/);
  } finally {
    s.close();
  }
});
