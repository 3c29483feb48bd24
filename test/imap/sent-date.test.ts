import { describe, expect, test } from 'vitest';
import { parseDateHeader, sentDate } from '../../src/mime/sent-date';

describe('RFC 5256 sent date', () => {
  test('Date headers as instants, zones applied', () => {
    expect(parseDateHeader('Mon, 02 Jan 2023 23:30:00 -0500')).toBe(Date.parse('2023-01-03T04:30:00Z'));
    expect(parseDateHeader('2 Jan 2023 23:30 +0130')).toBe(Date.parse('2023-01-02T22:00:00Z'));
    expect(parseDateHeader('Tue, 3 Jan 2023 10:00:00 GMT (comment)')).toBe(Date.parse('2023-01-03T10:00:00Z'));
    expect(parseDateHeader('Tue, 3 Jan 2023 10:00:00 PDT')).toBe(Date.parse('2023-01-03T17:00:00Z'));
  });

  test('obsolete years: two digits from 1950, three digits from 1900', () => {
    expect(parseDateHeader('3 Jan 23 10:00 +0000')).toBe(Date.parse('2023-01-03T10:00:00Z'));
    expect(parseDateHeader('3 Jan 99 10:00 +0000')).toBe(Date.parse('1999-01-03T10:00:00Z'));
    expect(parseDateHeader('3 Jan 103 10:00 +0000')).toBe(Date.parse('2003-01-03T10:00:00Z'));
  });

  test('not a date', () => {
    expect(parseDateHeader('yesterday')).toBeNull();
    expect(parseDateHeader('32 Jan 2023 10:00 +0000')).toBeNull();
    expect(parseDateHeader('3 Foo 2023 10:00 +0000')).toBeNull();
  });

  test('without a readable Date header, the INTERNALDATE', () => {
    const idate = Date.parse('2024-05-05T05:05:05Z');
    expect(sentDate(['Subject: x'], idate)).toBe(idate);
    expect(sentDate(['Date: soon'], idate)).toBe(idate);
    expect(sentDate(['DATE: 3 Jan 2023 10:00 +0000'], idate)).toBe(Date.parse('2023-01-03T10:00:00Z'));
  });
});
