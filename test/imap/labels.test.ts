import { describe, expect, test } from 'vitest';
import { control, mailbox, useImapSession, vendorFolder } from '../support/bridge-harness';
import type { VendorMessage } from '../../src/upstream/types';
import { must } from '../support/must';

/** Labels as keywords and as Labels/<label> folders, checked against the sandbox after each step. */

const s = useImapSession();

async function vendorMessage(messageUid: string): Promise<VendorMessage> {
  const all = await control<{ messages: VendorMessage[] }>(
    s.h.sandbox,
    'GET',
    `/messages?mailbox=${encodeURIComponent(mailbox)}`,
  );
  const found = all.messages.find((m) => m.message_uid === messageUid);
  if (!found) throw new Error(`no vendor message ${messageUid}`);
  return found;
}

async function setLabels(messageUid: string, labels: string[]): Promise<void> {
  await control(s.h.sandbox, 'POST', '/flags', { mailbox, message_uid: messageUid, labels });
}

async function uidOf(messageId: string): Promise<number> {
  const [uid] = (await s.client.search({ header: { 'message-id': messageId } }, { uid: true })) || [];
  return uid;
}

describe('labels as folders', () => {
  test('each vendor label is listed under Labels/, holding exactly the labelled messages of every folder', async () => {
    const [inbox1, inbox2] = await vendorFolder(s.h.sandbox, 'INBOX');
    const [archived] = await vendorFolder(s.h.sandbox, 'Archive');
    for (const m of [inbox1, inbox2, archived]) await setLabels(m.message_uid, ['Projects', 'Two words']);
    const list = await s.client.list();
    const paths = list.map((f) => f.path);
    expect(paths).toContain('Labels/Projects');
    expect(paths).toContain('Labels/Two words');
    expect(list.find((f) => f.path === 'Labels')?.flags.has('\\Noselect')).toBe(true);

    const all = await control<{ messages: VendorMessage[] }>(
      s.h.sandbox,
      'GET',
      `/messages?mailbox=${encodeURIComponent(mailbox)}`,
    );
    const expected = all.messages
      .filter((m) => m.labels.includes('Projects'))
      .map((m) => m.message_id)
      .sort();
    const opened = await s.client.mailboxOpen('Labels/Projects');
    expect(opened.exists).toBe(expected.length);
    const ids: string[] = [];
    for await (const m of s.client.fetch('1:*', { envelope: true, flags: true })) {
      ids.push(m.envelope?.messageId ?? '');
      expect(m.flags?.has('Projects')).toBe(true);
    }
    expect(ids.sort()).toEqual(expected);
    // a label that is not an IMAP atom is a folder but not a keyword
    expect((await s.client.mailboxOpen('Labels/Two words')).exists).toBe(expected.length);
  });

  test('COPY to Labels/<new> adds the label at the vendor, keeps the message in place, reports COPYUID', async () => {
    await s.client.mailboxOpen('INBOX');
    const [, , target] = await vendorFolder(s.h.sandbox, 'INBOX');
    const uid = await uidOf(target.message_id);
    const copied = must(await s.client.messageCopy(String(uid), 'Labels/Urgent', { uid: true }), 'COPYUID');
    expect(copied?.uidMap?.get(uid)).toBeGreaterThan(0);
    const after = await vendorMessage(target.message_uid);
    expect(after.labels).toContain('Urgent');
    expect(after.folders).toEqual(['INBOX']);
    // the source shows the keyword at once
    const inInbox = must(await s.client.fetchOne(String(uid), { flags: true }, { uid: true }), 'INBOX message');
    expect(inInbox?.flags?.has('Urgent')).toBe(true);
    await s.client.mailboxOpen('Labels/Urgent');
    expect(await uidOf(target.message_id)).toBe(copied?.uidMap?.get(uid));
  });

  test('\\Deleted + EXPUNGE inside a label folder removes the label, never the message', async () => {
    const [target] = await vendorFolder(s.h.sandbox, 'INBOX');
    await s.client.mailboxOpen('Labels/Projects');
    const uid = await uidOf(target.message_id);
    expect(uid).toBeGreaterThan(0);
    await s.client.messageFlagsAdd(String(uid), ['\\Deleted'], { uid: true });
    await s.client.messageDelete(String(uid), { uid: true });
    const after = await vendorMessage(target.message_uid);
    expect(after.labels).not.toContain('Projects');
    expect(after.labels).toContain('Two words');
    expect(after.folders).toEqual(['INBOX']);
    expect(await uidOf(target.message_id)).toBeUndefined();
    // INBOX still has it, without the keyword
    await s.client.mailboxOpen('INBOX');
    const inbox = must(
      await s.client.fetchOne(String(await uidOf(target.message_id)), { flags: true }, { uid: true }),
      'INBOX message',
    );
    expect(inbox?.flags?.has('Projects')).toBe(false);
  });

  test('STORE in a label folder reaches the vendor and the message in its own folder', async () => {
    const [, second] = await vendorFolder(s.h.sandbox, 'INBOX');
    await setLabels(second.message_uid, ['Projects', 'Two words']);
    await s.client.mailboxOpen('Labels/Projects');
    const uid = await uidOf(second.message_id);
    await s.client.messageFlagsAdd(String(uid), ['\\Flagged'], { uid: true });
    expect((await vendorMessage(second.message_uid)).is_starred).toBe(true);
    await s.client.mailboxOpen('INBOX');
    const inbox = must(
      await s.client.fetchOne(String(await uidOf(second.message_id)), { flags: true }, { uid: true }),
      'INBOX message',
    );
    expect(inbox?.flags?.has('\\Flagged')).toBe(true);
  });

  test('MOVE between label folders swaps the label; MOVE from a folder into a label folder is refused', async () => {
    const [, second] = await vendorFolder(s.h.sandbox, 'INBOX');
    await s.client.mailboxOpen('Labels/Projects');
    const uid = await uidOf(second.message_id);
    const moved = must(await s.client.messageMove(String(uid), 'Labels/Later', { uid: true }), 'COPYUID');
    expect(moved?.uidMap?.get(uid)).toBeGreaterThan(0);
    const after = await vendorMessage(second.message_uid);
    expect(after.labels).toContain('Later');
    expect(after.labels).not.toContain('Projects');
    expect(after.folders).toEqual(['INBOX']);

    await s.client.mailboxOpen('INBOX');
    const inboxUid = await uidOf(second.message_id);
    expect(await s.client.messageMove(String(inboxUid), 'Labels/Later', { uid: true })).toBeFalsy();
    expect((await vendorMessage(second.message_uid)).folders).toEqual(['INBOX']);
  });

  test('MOVE from a label folder to Trash moves the message and drops the label', async () => {
    const [archived] = await vendorFolder(s.h.sandbox, 'Archive');
    await s.client.mailboxOpen('Labels/Projects');
    const uid = await uidOf(archived.message_id);
    expect(uid).toBeGreaterThan(0);
    await s.client.messageMove(String(uid), 'Trash', { uid: true });
    const after = await vendorMessage(archived.message_uid);
    expect(after.folders).toEqual(['Trash']);
    expect(after.labels).not.toContain('Projects');
    expect(await uidOf(archived.message_id)).toBeUndefined();
    // the message left Archive in the bridge's view too, and shows in Trash without the keyword
    await s.client.mailboxOpen('Archive');
    expect(await uidOf(archived.message_id)).toBeUndefined();
    await s.client.mailboxOpen('Trash');
    const inTrash = must(
      await s.client.fetchOne(String(await uidOf(archived.message_id)), { flags: true }, { uid: true }),
      'Trash message',
    );
    expect(inTrash?.flags?.has('Projects')).toBe(false);
  });
});

describe('a vendor that lists no labels or cannot list by label', () => {
  const other = useImapSession({
    config: { assumptions: { labelListField: 'tags', commands: { listThreads: { labelArg: 'tag' } } } },
  });

  test('no label folders are listed, and opening one is refused with the reason, not an empty folder', async () => {
    expect((await other.client.list()).some((f) => f.path.startsWith('Labels'))).toBe(false);
    const err = (await other.client.mailboxOpen('Labels/Work').catch((e: unknown) => e)) as {
      responseText?: string;
      serverResponseCode?: string;
    };
    expect(err.serverResponseCode).toBe('CANNOT');
    expect(err.responseText).toMatch(/cannot list messages by label/);
    // the session and the bridge carry on
    expect((await other.client.mailboxOpen('INBOX')).exists).toBeGreaterThan(0);
  });
});
