import { expect, test } from 'vitest';
import type { AccountView } from '../../src/domain/account-view';
import type { ImapFolder } from '../../src/domain/mailbox-map';
import { resync, vanishedSince } from '../../src/imap/qresync';

/**
 * QRESYNC's answer when the folder's tombstones (MailStore.pruneTombstones) no longer reach back
 * to the client's MODSEQ: every UID below UIDNEXT the folder does not hold, a superset of what
 * vanished, never a UID the folder still has. (rfc7162-qresync.test.ts compares the usual case
 * with Dovecot; test/store/mail-store.test.ts the tombstones themselves.)
 */

const folder = { key: 'INBOX' } as ImapFolder;

function viewWith(tombstones: { complete: boolean; uids: number[] }): AccountView {
  return { vanishedSince: () => tombstones } as unknown as AccountView;
}

test('tombstones that reach back answer what they hold', () => {
  expect(vanishedSince(viewWith({ complete: true, uids: [3, 5] }), folder, 7, [1, 2, 4], 6)).toEqual([3, 5]);
});

test('a client older than the tombstones hears of every UID the folder does not hold', () => {
  expect(vanishedSince(viewWith({ complete: false, uids: [5] }), folder, 1, [2, 4, 7], 9)).toEqual([1, 3, 5, 6, 8]);
});

test("SELECT (QRESYNC ...) with another UIDVALIDITY adds nothing; with the folder's, the changes since its MODSEQ", () => {
  const view = viewWith({ complete: true, uids: [3] });
  const row = (uid: number, modseq: number, flags: string[]) => ({
    uid,
    modseq,
    flags,
    messageUid: `m${uid}`,
    idate: 0,
    size: 1,
  });
  const rows = [row(1, 4, ['\\Seen']), row(2, 9, ['\\Flagged'])];
  const opened = { uidValidity: 42, uidNext: 4, uids: [1, 2], rows };
  expect(resync(view, folder, opened, { uidValidity: 41, modseq: 5 }, new Set())).toEqual({
    vanished: [],
    changed: [],
  });
  expect(resync(view, folder, opened, { uidValidity: 42, modseq: 5 }, new Set([2]))).toEqual({
    vanished: [3],
    changed: [{ uid: 2, flags: ['\\Flagged', '\\Recent'], modseq: 9 }],
  });
});
