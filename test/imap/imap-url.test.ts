import { expect, test } from 'vitest';
import { parseMessageUrl, parseSection } from '../../src/imap/imap-url';

/** RFC 5092 URLs as CATENATE takes them (rfc4469-catenate.test.ts compares the answers with Dovecot's). */

test('a mailbox with the hierarchy delimiter, percent-encoded UTF-8, UIDVALIDITY, section and partial', () => {
  expect(parseMessageUrl('/Labels/%C3%A9t%C3%A9;UIDVALIDITY=7/;UID=12/;SECTION=1.2.MIME/;PARTIAL=5.10', null)).toEqual({
    mailbox: 'Labels/été',
    uidValidity: 7,
    uid: 12,
    section: { path: '1.2', type: 'mime' },
    partial: { start: 5, length: 10 },
  });
});

test('relative to the selected mailbox, resolved against its name as RFC 3986 does', () => {
  const at = (url: string, selected: string | null) => parseMessageUrl(url, selected)?.mailbox ?? null;
  expect(at(';UID=3', 'Labels/été')).toBe('Labels/été');
  expect(at('INBOX/;UID=3', 'INBOX')).toBe('INBOX/INBOX');
  expect(at('INBOX/;UID=3', null)).toBe('INBOX');
  expect(at(';UID=3', null)).toBeNull();
});

test('what names no message part', () => {
  for (const url of [
    'imap://ann@example.test/INBOX/;UID=1',
    '//example.test/INBOX/;UID=1',
    '/INBOX',
    '/INBOX/;UID=0',
    '/INBOX/;UID=4294967296',
    '/INBOX;UIDVALIDITY=0/;UID=1',
    '/INBOX/;UID=1/;PARTIAL=0.0',
    '/INBOX/;UID=1/;SECTION=',
    '/INBOX/;UID=1?SUBJECT%20x',
    '/INBOX/;UID=1/;URLAUTH=anonymous',
    '/%E9/;UID=1',
  ])
    expect(parseMessageUrl(url, 'INBOX'), url).toBeNull();
});

test('sections as FETCH BODY[...] names them', () => {
  expect(parseSection('HEADER.FIELDS (From "Subject")')).toEqual({
    path: '',
    type: 'header.fields',
    headers: ['from', 'subject'],
  });
  expect(parseSection('2.header.fields.not (X-A)')).toEqual({ path: '2', type: 'header.fields.not', headers: ['x-a'] });
  expect(parseSection('3')).toEqual({ path: '3', type: 'content' });
  expect(parseSection('TEXT')).toEqual({ path: '', type: 'text' });
  for (const bad of ['MIME', 'FOO', 'HEADER.FIELDS', 'HEADER.FIELDS ()', 'HEADER.FIELDS (a:b)', '1.FOO'])
    expect(parseSection(bad), bad).toBeNull();
});
