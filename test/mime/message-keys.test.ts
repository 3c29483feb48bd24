import { afterAll, describe, expect, test } from 'vitest';
import type { Connector } from '../../src/domain/connector';
import { draftRecord, MessageCache } from '../../src/domain/message-cache';
import { describeRecord, type MetadataRecord } from '../../src/mime';
import { casemap } from '../../src/mime/casemap';
import { searchedValues } from '../../src/mime/searched-fields';
import { messageKeys, searchedKeys, type MessageKeys } from '../../src/mime/message-keys';
import { openMirrorDatabase } from '../../src/store/db';
import { MailStore } from '../../src/store/mail-store';
import { messageKeyNames } from '../../src/store/message-keys-table';
import { corpora } from './corpora';

/**
 * The SORT, THREAD and SEARCH keys stored when a message is described (message_keys) are what
 * the keys computed from the header lines the bridge serves give (the path a row stored before
 * keys were is answered by), and SEARCH's stored fields are what it reads of any other field:
 * for every message of every corpus, and for drafts with odd dates, encodings and addresses.
 */

const account = 'me@example.com';

/** Drafts a client could append: obsolete and unreadable dates, subjects in every encoding, groups. */
const oddHeaders: string[][] = [
  ['Date: 1 Jan 49 00:00 EST', 'Subject: =?ISO-8859-1?Q?R=E9union?= (fwd)', 'From: Team: a@x, b@x;'],
  ['Date: Mon, 2 Jan 2023 23:30 -0500 (EST)', 'Subject: Re: [list] Übergabe [Fwd: 会議]', 'To: <bob@example.org>'],
  ['Date: soon', 'Subject: =?UTF-8?B?w5xiZXJnYWJl?= des =?UTF-8?Q?Projekts?=', 'Cc: "Müller, J." <j@x>'],
  ['Date: 31 Dec 1899 23:59:60 +1400', 'Subject: FWD: re:   spaced\tout  ', 'From: <user (c)@ (c) domain.org>'],
  ['Subject: ΣΊΣΥΦΟΣ ﬁle ß', 'From: =?UTF-8?Q?J=C3=BCrgen?= <juergen@beispiel.de>', 'In-Reply-To: <p@x> <q@x>'],
  ['References: <a@x>\r\n <b@x>', 'Message-ID: <own@x>', 'Subject: two', 'Subject: second ignored'],
  ['X-Other: no keyed field at all'],
];

function draftRecords(): MetadataRecord[] {
  return oddHeaders.map((lines, i) =>
    draftRecord(`local:odd-${i}`, Buffer.from(`${lines.join('\r\n')}\r\n\r\nbody\r\n`), new Date(Date.UTC(2026, 0, 1))),
  );
}

const records: Record<string, () => MetadataRecord[]> = {
  ...Object.fromEntries(
    Object.entries(corpora).map(([name, messages]) => [name, () => messages().map((m) => describeRecord(m))]),
  ),
  'drafts with odd dates, encodings and addresses': draftRecords,
};

const store = new MailStore(openMirrorDatabase());
afterAll(() => store.db.close());

/** What each message's keys are from its stored header lines, with SEARCH's reading of the same fields. */
function fromHeaderLines(uids: string[]): Map<string, MessageKeys> {
  const headers = store.getHeaders(account, uids);
  return new Map(
    uids.map((uid) => {
      const lines = headers.get(uid) ?? [];
      const keys = messageKeys(lines);
      for (const [field, key] of Object.entries(searchedKeys))
        expect(keys[key], uid).toEqual(searchedValues(lines, field));
      return [uid, keys];
    }),
  );
}

describe('the keys stored with each message', () => {
  for (const [name, made] of Object.entries(records)) {
    test(name, async () => {
      const all = made();
      store.putMetadataRecords(account, all);
      const uids = all.map((r) => r.messageUid);
      const expected = fromHeaderLines(uids);
      expect(store.getMessageKeys(account, uids, messageKeyNames)).toEqual(expected);
      // read through the rows of a folder holding them, as a command on that folder reads them
      store.assignUids(account, name, uids);
      expect(store.getMessageKeys(account, uids, messageKeyNames, name)).toEqual(expected);

      // a message described before keys were stored: computed from its header lines, and stored
      const older = uids.filter((_, i) => i % 2);
      store.db
        .prepare('DELETE FROM message_keys WHERE account = ? AND message_uid IN (SELECT value FROM json_each(?))')
        .run(account, JSON.stringify(older));
      const cache = new MessageCache(account, {} as Connector, store, store.local);
      expect(await cache.messageKeys(uids, messageKeyNames)).toEqual(expected);
      expect(store.getMessageKeys(account, older, messageKeyNames)).toEqual(
        new Map(older.map((uid) => [uid, expected.get(uid)])),
      );
    });
  }

  test('the messages checked hold what the keys are for', () => {
    const keys = [...store.getMessageKeys(account, allUids(), messageKeyNames).values()] as MessageKeys[];
    expect(keys.length).toBeGreaterThan(800);
    expect(keys.some((k) => k.sentDate === null)).toBe(true);
    expect(keys.some((k) => k.sentDate !== null && k.sentDate < 0)).toBe(true);
    expect(keys.some((k) => k.replyOrForward)).toBe(true);
    expect(keys.some((k) => k.messageId === null)).toBe(true);
    expect(keys.some((k) => k.parents.length > 1)).toBe(true);
    expect(keys.some((k) => k.subjectText.some((s) => s.includes(casemap('Übergabe'))))).toBe(true);
    expect(keys.some((k) => k.subjectText.some((s) => s.includes('会議')))).toBe(true);
    expect(keys.some((k) => /[^\x00-\x7f]/.test(k.displayFrom))).toBe(true);
  });
});

function allUids(): string[] {
  return (store.db.prepare('SELECT message_uid FROM message_keys').pluck().all() as string[]).sort();
}
