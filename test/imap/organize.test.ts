import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ImapFlow } from 'imapflow';
import nodemailer from 'nodemailer';
import { control, mailbox, startHarness, type Harness } from '../support/bridge-harness';
import type { VendorMessage } from '../../src/upstream/types';

let h: Harness;
let client: ImapFlow;

async function folder(name: string): Promise<VendorMessage[]> {
  return (await control<{ messages: VendorMessage[] }>(h.sandbox, 'GET', `/messages?mailbox=${encodeURIComponent(mailbox)}&folder=${encodeURIComponent(name)}`)).messages;
}

async function uidOf(messageId: string): Promise<number> {
  const [uid] = (await client.search({ header: { 'message-id': messageId } }, { uid: true })) || [];
  return uid;
}

beforeAll(async () => {
  h = await startHarness();
  client = await h.client();
});

afterAll(async () => {
  await client?.logout().catch(() => undefined);
  await h?.close();
});

describe('organising mail through IMAP', () => {
  test('UID MOVE goes through the vendor and reports COPYUID', async () => {
    await client.mailboxOpen('INBOX');
    const [target] = await folder('INBOX');
    const uid = await uidOf(target.message_id);
    const result = await client.messageMove(String(uid), 'Archive', { uid: true });
    expect(result && result.uidMap?.get(uid)).toBeGreaterThan(0);
    expect((await folder('INBOX')).some((m) => m.message_uid === target.message_uid)).toBe(false);
    expect((await folder('Archive')).some((m) => m.message_uid === target.message_uid)).toBe(true);
    const archive = await client.mailboxOpen('Archive');
    const inArchive = await uidOf(target.message_id);
    expect(inArchive).toBe(result && result.uidMap?.get(uid));
    expect(archive.exists).toBe((await folder('Archive')).length);
  });

  test('\\Deleted + EXPUNGE moves to Trash; COPY is refused without losing anything', async () => {
    await client.mailboxOpen('INBOX');
    const [target] = await folder('INBOX');
    const uid = await uidOf(target.message_id);
    expect(await client.messageCopy(String(uid), 'Archive', { uid: true })).toBeFalsy();
    expect((await folder('INBOX')).some((m) => m.message_uid === target.message_uid)).toBe(true);
    await client.messageFlagsAdd(String(uid), ['\\Deleted'], { uid: true });
    await client.messageDelete(String(uid), { uid: true });
    expect((await folder('INBOX')).some((m) => m.message_uid === target.message_uid)).toBe(false);
    expect((await folder('Trash')).some((m) => m.message_uid === target.message_uid)).toBe(true);
  });

  test('CREATE is refused with a clear reason', async () => {
    await expect(client.mailboxCreate('Projects')).rejects.toThrow();
    const list = await client.list();
    expect(list.some((f) => f.path === 'Projects')).toBe(false);
  });

  test('drafts are kept locally, survive a restart, and can be replaced', async () => {
    const draft = Buffer.from(`From: ${mailbox}\r\nTo: bob@sandbox.test\r\nSubject: Draft one\r\nMessage-ID: <draft-1@mailbridge.test>\r\n\r\nwork in progress\r\n`);
    const appended = await client.append('Drafts', draft, ['\\Draft', '\\Seen']);
    expect(appended && appended.uid).toBeGreaterThan(0);
    await client.logout();
    await h.restart();
    client = await h.client();
    await client.mailboxOpen('Drafts');
    const got = await client.fetchOne(String(appended && appended.uid), { source: true }, { uid: true });
    expect(got && (got.source as Buffer).toString()).toContain('work in progress');
    await client.messageDelete(String(appended && appended.uid), { uid: true });
    expect(await client.fetchOne(String(appended && appended.uid), { uid: true }, { uid: true })).toBeFalsy();
  });

  test("the client's Sent copy of a message sent through the bridge is recognised, not duplicated", async () => {
    const raw = Buffer.from(`From: Alice <${mailbox}>\r\nTo: bob@sandbox.test\r\nSubject: Sent through the bridge\r\nMessage-ID: <sent-copy-1@mailbridge.test>\r\nContent-Type: text/plain\r\n\r\nhello bob\r\n`);
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: h.bridge.ports.smtp, secure: false, ignoreTLS: true, auth: { user: mailbox, pass: h.password } });
    await transport.sendMail({ envelope: { from: mailbox, to: ['bob@sandbox.test'] }, raw });
    transport.close();
    const sentBefore = await folder('Sent');
    expect(sentBefore.filter((m) => m.message_id === '<sent-copy-1@mailbridge.test>')).toHaveLength(1);
    const appended = await client.append('Sent', raw, ['\\Seen']);
    await client.mailboxOpen('Sent');
    expect(appended && appended.uid).toBe(await uidOf('<sent-copy-1@mailbridge.test>'));
    expect((await folder('Sent')).length).toBe(sentBefore.length);
  });

  test('APPEND of a message the bridge did not send is refused, not dropped', async () => {
    const other = Buffer.from('From: x@example.org\r\nSubject: imported\r\nMessage-ID: <imported@example.org>\r\n\r\nbody\r\n');
    await expect(client.append('INBOX', other)).rejects.toThrow();
    await expect(client.append('Sent', other)).rejects.toThrow();
  });
});
