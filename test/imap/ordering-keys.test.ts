import { describe, expect, test } from 'vitest';
import { casemap } from '../../src/mime/casemap';
import { OrderingKeys } from '../../src/imap/ordering-keys';
import { messageKeys } from '../../src/mime/message-keys';

/** The ordering keys of a message with these header lines. */
const orderingKeys = (lines: string[]) => new OrderingKeys(messageKeys(lines));

describe('the ordering keys of a message (RFC 5256), read once from its header lines', () => {
  test('the first of each field counts; names in any case; folded values unfolded', () => {
    const keys = orderingKeys([
      'SUBJECT: Re: =?UTF-8?Q?=C3=9Cbergabe?=\r\n des Projekts',
      'Subject: second',
      'date: Mon, 2 Jan 2023 23:30 -0500',
      'Message-ID: <own@example.org>',
      'References: <a@x>\r\n <b@x> <c@x>',
      'In-Reply-To: <c@x>',
    ]);
    expect(keys.subject).toEqual({ base: casemap('Übergabe des Projekts'), replyOrForward: true });
    expect(keys.sentDate(0)).toBe(Date.parse('2023-01-03T04:30:00Z'));
    expect(keys.messageId).toBe('own@example.org');
    expect(keys.references).toEqual(['a@x', 'b@x', 'c@x']);
  });

  test('without References the first In-Reply-To is the parent; without a readable Date the INTERNALDATE', () => {
    const keys = orderingKeys(['In-Reply-To: <p@x> <q@x>', 'Date: soon']);
    expect(keys.references).toEqual(['p@x']);
    expect(keys.messageId).toBeUndefined();
    expect(keys.sentDate(1234)).toBe(1234);
    expect(orderingKeys([]).sentDate(99)).toBe(99);
    expect(orderingKeys([]).subject).toEqual({ base: '', replyOrForward: false });
  });

  test("the first address's mailbox in casemap form; a group by its name; none is empty", () => {
    const keys = orderingKeys([
      'From: =?UTF-8?Q?J=C3=BCrgen?= <juergen.mueller@beispiel.de>, other@x',
      'To: Team: a@x, b@x;',
      'Cc: <bob@example.org>',
    ]);
    expect(keys.firstMailbox('from')).toBe('JUERGEN.MUELLER');
    expect(keys.firstMailbox('to')).toBe('TEAM');
    expect(keys.firstMailbox('cc')).toBe('BOB');
    expect(orderingKeys(['X-From: a@x']).firstMailbox('from')).toBe('');
  });
});
