import { describe, expect, test } from 'vitest';
import nodemailer from 'nodemailer';
import { mailbox, useImapSession, vendorFolder } from '../support/bridge-harness';
import { must } from '../support/must';

async function uidOf(messageId: string): Promise<number> {
  const [uid] = (await s.client.search({ header: { 'message-id': messageId } }, { uid: true })) || [];
  return uid;
}

// COPY between folders as refused by copyToFolder "refuse" (the default moves)
const s = useImapSession({ config: { copyToFolder: 'refuse' } });

describe('organising mail through IMAP', () => {
  test('UID MOVE goes through the vendor and reports COPYUID', async () => {
    await s.client.mailboxOpen('INBOX');
    const [target] = await vendorFolder(s.h.sandbox, 'INBOX');
    const uid = await uidOf(target.message_id);
    const result = must(await s.client.messageMove(String(uid), 'Archive', { uid: true }), 'COPYUID');
    expect(result?.uidMap?.get(uid)).toBeGreaterThan(0);
    expect((await vendorFolder(s.h.sandbox, 'INBOX')).some((m) => m.message_uid === target.message_uid)).toBe(false);
    expect((await vendorFolder(s.h.sandbox, 'Archive')).some((m) => m.message_uid === target.message_uid)).toBe(true);
    const archive = await s.client.mailboxOpen('Archive');
    const inArchive = await uidOf(target.message_id);
    expect(inArchive).toBe(result?.uidMap?.get(uid));
    expect(archive.exists).toBe((await vendorFolder(s.h.sandbox, 'Archive')).length);
  });

  test('\\Deleted + EXPUNGE moves to Trash; COPY is refused without losing anything', async () => {
    await s.client.mailboxOpen('INBOX');
    const [target] = await vendorFolder(s.h.sandbox, 'INBOX');
    const uid = await uidOf(target.message_id);
    expect(await s.client.messageCopy(String(uid), 'Archive', { uid: true })).toBeFalsy();
    expect((await vendorFolder(s.h.sandbox, 'INBOX')).some((m) => m.message_uid === target.message_uid)).toBe(true);
    await s.client.messageFlagsAdd(String(uid), ['\\Deleted'], { uid: true });
    await s.client.messageDelete(String(uid), { uid: true });
    expect((await vendorFolder(s.h.sandbox, 'INBOX')).some((m) => m.message_uid === target.message_uid)).toBe(false);
    expect((await vendorFolder(s.h.sandbox, 'Trash')).some((m) => m.message_uid === target.message_uid)).toBe(true);
  });

  test('CREATE outside Labels/ is refused with a clear reason', async () => {
    const err = (await s.client.mailboxCreate('Projects').then(
      () => null,
      (e: unknown) => e,
    )) as { serverResponseCode?: string; responseText?: string } | null;
    // the vendor has no folder management: a permanent refusal that says what can be created
    expect(err?.serverResponseCode).toBe('CANNOT');
    expect(err?.responseText).toMatch(/cannot create folders/i);
    expect(err?.responseText).toMatch(/Labels\/<name>/);
    const list = await s.client.list();
    expect(list.some((f) => f.path === 'Projects')).toBe(false);
  });

  test('drafts are kept locally, survive a restart, and can be replaced', async () => {
    const draft = Buffer.from(
      `From: ${mailbox}\r\nTo: bob@sandbox.test\r\nSubject: Draft one\r\n` +
        'Message-ID: <draft-1@mailbridge.test>\r\n\r\nwork in progress\r\n',
    );
    const appended = must(await s.client.append('Drafts', draft, ['\\Draft', '\\Seen']), 'APPENDUID');
    expect(appended?.uid).toBeGreaterThan(0);
    await s.client.logout();
    await s.h.restart();
    s.client = await s.h.client();
    await s.client.mailboxOpen('Drafts');
    const got = await s.client.fetchOne(String(appended?.uid), { source: true }, { uid: true });
    expect(got && (got.source as Buffer).toString()).toContain('work in progress');
    await s.client.messageDelete(String(appended?.uid), { uid: true });
    expect(await s.client.fetchOne(String(appended?.uid), { uid: true }, { uid: true })).toBeFalsy();
  });

  test("the client's Sent copy of a message sent through the bridge is recognised, not duplicated", async () => {
    const raw = Buffer.from(
      `From: Alice <${mailbox}>\r\nTo: bob@sandbox.test\r\nSubject: Sent through the bridge\r\n` +
        'Message-ID: <sent-copy-1@mailbridge.test>\r\nContent-Type: text/plain\r\n\r\nhello bob\r\n',
    );
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: s.h.bridge.ports.smtp,
      secure: false,
      ignoreTLS: true,
      auth: { user: mailbox, pass: s.h.password },
    });
    await transport.sendMail({ envelope: { from: mailbox, to: ['bob@sandbox.test'] }, raw });
    transport.close();
    const sentBefore = await vendorFolder(s.h.sandbox, 'Sent');
    expect(sentBefore.filter((m) => m.message_id === '<sent-copy-1@mailbridge.test>')).toHaveLength(1);
    const appended = must(await s.client.append('Sent', raw, ['\\Seen']), 'APPENDUID');
    await s.client.mailboxOpen('Sent');
    expect(appended?.uid).toBe(await uidOf('<sent-copy-1@mailbridge.test>'));
    expect((await vendorFolder(s.h.sandbox, 'Sent')).length).toBe(sentBefore.length);
  });

  test('APPEND of a message the bridge did not send is refused, not dropped', async () => {
    const other = Buffer.from(
      'From: x@example.org\r\nSubject: imported\r\nMessage-ID: <imported@example.org>\r\n\r\nbody\r\n',
    );
    await expect(s.client.append('INBOX', other)).rejects.toThrow();
    await expect(s.client.append('Sent', other)).rejects.toThrow();
  });
});
