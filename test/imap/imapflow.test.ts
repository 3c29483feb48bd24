import { describe, expect, test } from 'vitest';
import { simpleParser } from 'mailparser';
import { control, mailbox, useImapSession, vendorFolder } from '../support/bridge-harness';
import type { VendorMessage } from '../../src/upstream/types';
import { must } from '../support/must';

const s = useImapSession();

describe('IMAP read path with imapflow', () => {
  test('capabilities include the promised extensions', () => {
    for (const cap of [
      'IDLE',
      'UIDPLUS',
      'MOVE',
      'SPECIAL-USE',
      'UNSELECT',
      'ID',
      'NAMESPACE',
      'ENABLE',
      'CONDSTORE',
    ]) {
      expect(s.client.capabilities.has(cap), cap).toBe(true);
    }
  });

  test('LIST shows vendor folders with special-use attributes', async () => {
    const list = await s.client.list();
    const byPath = new Map(list.map((f) => [f.path, f]));
    expect(byPath.has('INBOX')).toBe(true);
    expect(byPath.get('Sent')?.specialUse).toBe('\\Sent');
    expect(byPath.get('Trash')?.specialUse).toBe('\\Trash');
    expect(byPath.get('Spam')?.specialUse).toBe('\\Junk');
  });

  test('SELECT reports the vendor folder contents; UIDs follow arrival order', async () => {
    const vendor = await vendorFolder(s.h.sandbox, 'INBOX');
    const box = await s.client.mailboxOpen('INBOX');
    expect(box.exists).toBe(vendor.length);
    expect(Number(box.uidNext)).toBe(vendor.length + 1);
    const fetched: Array<{ uid: number; date: Date; id: string }> = [];
    for await (const m of s.client.fetch('1:*', { uid: true, internalDate: true, envelope: true })) {
      fetched.push({ uid: m.uid, date: m.internalDate as Date, id: m.envelope?.messageId ?? '' });
    }
    expect(fetched.length).toBe(vendor.length);
    const dates = fetched.map((f) => f.date.getTime());
    expect([...dates].sort((a, b) => a - b)).toEqual(dates);
    expect(new Set(fetched.map((f) => f.id))).toEqual(new Set(vendor.map((v) => v.message_id)));
    const status = must(await s.client.status('INBOX', { unseen: true, messages: true }), 'STATUS');
    expect(status?.unseen).toBe(vendor.filter((v) => !v.is_read).length);
  });

  test('BODY[] equals RFC822.SIZE and parses back to the vendor message', async () => {
    await s.client.mailboxOpen('INBOX');
    const vendor = await vendorFolder(s.h.sandbox, 'INBOX');
    const withAttachment =
      vendor.find((v) => (v.attachments ?? []).some((a) => !a.inline && a.size_bytes > 0)) ?? vendor[0];
    const uids = (await s.client.search({ header: { 'message-id': withAttachment.message_id } }, { uid: true })) || [];
    expect(uids).toHaveLength(1);
    const msg = await s.client.fetchOne(
      String(uids[0]),
      { source: true, size: true, bodyStructure: true },
      { uid: true },
    );
    expect(msg).toBeTruthy();
    if (!msg) return;
    expect(msg.source?.length).toBe(msg.size);
    const parsed = await simpleParser(msg.source as Buffer);
    expect(parsed.subject).toBe(withAttachment.subject);
    expect(parsed.from?.value[0].address).toBe(withAttachment.from_email);
    const expected = (withAttachment.attachments ?? []).filter((a) => !a.inline);
    for (const att of expected) {
      const got = parsed.attachments.find((a) => a.filename === att.file_name);
      expect(got, att.file_name).toBeTruthy();
      expect(got?.size).toBe(att.size_bytes);
    }
    // the same bytes again (deterministic MIME, attachment served from cache)
    const again = await s.client.fetchOne(String(uids[0]), { source: true }, { uid: true });
    expect(again && Buffer.compare(again.source as Buffer, msg.source as Buffer)).toBe(0);
  });

  test('a partial BODY[] downloads only the attachments its byte window reaches', async () => {
    await s.client.mailboxOpen('INBOX');
    const vendor = await vendorFolder(s.h.sandbox, 'INBOX');
    // a message whose attachments nothing has downloaded yet (message/* ones are, when it is described)
    const lazy = (a: { size_bytes: number; mime_type: string }) =>
      a.size_bytes > 0 && !a.mime_type.startsWith('message/');
    const withAttachments = vendor.filter((v) => (v.attachments ?? []).some(lazy)).at(-1)!;
    const downloadable = (withAttachments.attachments ?? []).filter(lazy).length;
    const [uid] =
      (await s.client.search({ header: { 'message-id': withAttachments.message_id } }, { uid: true })) || [];
    s.h.sandbox.resetStats();
    const head = await s.client.fetchOne(String(uid), { source: { start: 0, maxLength: 300 } }, { uid: true });
    expect(head && (head.source as Buffer).length).toBe(300);
    expect(s.h.sandbox.stats(mailbox).rawDownloads).toBe(0);
    const whole = await s.client.fetchOne(String(uid), { source: true, size: true }, { uid: true });
    expect(s.h.sandbox.stats(mailbox).rawDownloads).toBe(downloadable);
    expect(whole && head && (whole.source as Buffer).subarray(0, 300).equals(head.source as Buffer)).toBe(true);
  });

  test('STORE goes upstream: \\Seen, \\Flagged and a keyword label', async () => {
    await s.client.mailboxOpen('INBOX');
    const unread = (await vendorFolder(s.h.sandbox, 'INBOX')).find((v) => !v.is_read && !v.is_starred);
    expect(unread).toBeTruthy();
    if (!unread) return;
    const [uid] = (await s.client.search({ header: { 'message-id': unread.message_id } }, { uid: true })) || [];
    await s.client.messageFlagsAdd(String(uid), ['\\Seen', '\\Flagged', 'Projekt'], { uid: true });
    const after = (await vendorFolder(s.h.sandbox, 'INBOX')).find((v) => v.message_uid === unread.message_uid);
    expect(after?.is_read).toBe(true);
    expect(after?.is_starred).toBe(true);
    expect(after?.labels).toContain('Projekt');
    await s.client.messageFlagsRemove(String(uid), ['\\Flagged', 'Projekt'], { uid: true });
    const reverted = (await vendorFolder(s.h.sandbox, 'INBOX')).find((v) => v.message_uid === unread.message_uid);
    expect(reverted?.is_starred).toBe(false);
    expect(reverted?.labels).not.toContain('Projekt');
  });

  test('SEARCH on metadata and vendor text search', async () => {
    await s.client.mailboxOpen('INBOX');
    const vendor = await vendorFolder(s.h.sandbox, 'INBOX');
    const unseen = (await s.client.search({ seen: false }, { uid: true })) || [];
    expect(unseen.length).toBe(vendor.filter((v) => !v.is_read).length);
    const target = vendor[vendor.length - 1];
    const word = target.subject.split(/\s+/).find((w) => w.length > 4) ?? target.subject;
    const bySubject = (await s.client.search({ subject: word }, { uid: true })) || [];
    expect(bySubject.length).toBe(vendor.filter((v) => v.subject.toLowerCase().includes(word.toLowerCase())).length);
    // TEXT is header and body (RFC 3501 6.4.4): the vendor's search gives candidates, each checked
    const byText = (await s.client.search({ text: word }, { uid: true })) || [];
    expect(byText).toEqual(expect.arrayContaining(bySubject));
    expect(bySubject.length).toBeGreaterThan(0);
  });

  test('UIDs and bytes survive a restart', async () => {
    await s.client.mailboxOpen('INBOX');
    const before = new Map<number, number>();
    for await (const m of s.client.fetch('1:*', { uid: true, size: true })) before.set(m.uid, m.size as number);
    await s.client.logout();
    await s.h.restart();
    s.client = await s.h.client();
    const box = await s.client.mailboxOpen('INBOX');
    const after = new Map<number, number>();
    for await (const m of s.client.fetch('1:*', { uid: true, size: true })) after.set(m.uid, m.size as number);
    expect(after).toEqual(before);
    expect(box.uidValidity).toBeTruthy();
  });

  test('new mail and flag changes made elsewhere reach an IDLE client', async () => {
    const box = await s.client.mailboxOpen('INBOX');
    const existsBefore = box.exists;
    const seenExists = new Promise<number>((resolve) =>
      s.client.on('exists', (e: { count: number }) => resolve(e.count)),
    );
    void s.client.idle(); // runs until the next command
    await control(s.h.sandbox, 'POST', '/inject', {
      mailbox,
      message: { from: 'news@example.org', to: mailbox, subject: 'Fresh news', text: 'hello' },
    });
    await s.h.bridge.pollers[0].tick();
    expect(await seenExists).toBe(existsBefore + 1);
    // a flag change made in webmail reaches the same session after the next poll
    const [latest] = (
      await control<{ messages: VendorMessage[] }>(
        s.h.sandbox,
        'GET',
        `/messages?mailbox=${encodeURIComponent(mailbox)}&folder=INBOX`,
      )
    ).messages.filter((m) => m.subject === 'Fresh news');
    const flagged = new Promise<string[]>((resolve) =>
      s.client.on('flags', (e: { flags: Set<string> }) => resolve([...e.flags])),
    );
    await control(s.h.sandbox, 'POST', '/flags', { mailbox, message_uid: latest.message_uid, is_starred: true });
    await s.h.bridge.pollers[0].tick();
    expect(await flagged).toContain('\\Flagged');
  });
});
