import { afterEach, describe, expect, test, vi } from 'vitest';
import searchCommand from '@mailbridge/imap-core/lib/commands/search.js';
import {
  compileQuery,
  textTerms,
  type SearchCandidate,
  type SearchTerm,
  type TextMatcher,
} from '../../src/imap/search';

const parse = (terms: string[], uids: number[]): SearchTerm[] => searchCommand.parseQueryTerms(terms, uids).query;

const msg = (over: Partial<SearchCandidate>): SearchCandidate => ({
  uid: 1,
  messageUid: 'm1',
  modseq: 5,
  flags: ['\\Seen'],
  idate: Date.parse('2024-02-01T10:00:00Z'),
  size: 2048,
  headerLines: [
    'From: =?UTF-8?Q?J=C3=BCrgen_M=C3=BCller?= <juergen@example.de>',
    'Subject: Quarterly report',
    'Date: Wed, 31 Jan 2024 23:00:00 +0000',
  ],
  ...over,
});

const noText = () => false;

const matchAll = (m: SearchCandidate, query: SearchTerm[], text: TextMatcher) => compileQuery(query, text)(m);

afterEach(() => {
  vi.useRealTimers();
});

describe('SEARCH evaluation on cached metadata', () => {
  test('flags, sizes, dates and decoded headers', () => {
    const m = msg({});
    expect(matchAll(m, parse(['SEEN', 'LARGER', '1000'], [1]), noText)).toBe(true);
    expect(matchAll(m, parse(['UNSEEN'], [1]), noText)).toBe(false);
    expect(matchAll(m, parse(['FROM', 'müller'], [1]), noText)).toBe(true);
    expect(matchAll(m, parse(['SUBJECT', 'QUARTERLY'], [1]), noText)).toBe(true);
    expect(matchAll(m, parse(['ON', '1-Feb-2024'], [1]), noText)).toBe(true);
    expect(matchAll(m, parse(['SENTON', '31-Jan-2024'], [1]), noText)).toBe(true);
    expect(matchAll(m, parse(['BEFORE', '1-Feb-2024'], [1]), noText)).toBe(false);
    expect(matchAll(m, parse(['OR', 'FLAGGED', 'NOT', 'SMALLER', '100'], [1]), noText)).toBe(true);
    expect(matchAll(m, parse(['UID', '2:5'], [1, 2]), noText)).toBe(false);
  });

  test('a header written in raw UTF-8 (RFC 6532) is searched as its text', () => {
    // imap-core gives header lines as binary strings, one character a byte
    const subject = Buffer.from('Subject: Re: RÉUNION à 10h', 'utf8').toString('latin1');
    const m = msg({ headerLines: [subject] });
    expect(matchAll(m, parse(['SUBJECT', 'réunion'], [1]), noText)).toBe(true);
    expect(matchAll(m, parse(['SUBJECT', 'À 10H'], [1]), noText)).toBe(true);
  });

  test('WITHIN: OLDER and YOUNGER compare the INTERNALDATE instant with now minus the interval (RFC 5032)', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse('2024-02-01T12:00:00Z'));
    // two hours before "now", the same day: a day comparison could not tell these apart
    const m = msg({ idate: Date.parse('2024-02-01T10:00:00Z') });
    expect(matchAll(m, parse(['YOUNGER', '3600'], [1]), noText)).toBe(false);
    expect(matchAll(m, parse(['YOUNGER', '10800'], [1]), noText)).toBe(true);
    expect(matchAll(m, parse(['OLDER', '3600'], [1]), noText)).toBe(true);
    expect(matchAll(m, parse(['OLDER', '10800'], [1]), noText)).toBe(false);
    expect(matchAll(m, parse(['OLDER', '7200', 'YOUNGER', '7200'], [1]), noText)).toBe(true);
  });

  test('BODY/TEXT terms are delegated and collected', () => {
    const query = parse(['OR', 'BODY', 'invoice', 'TEXT', 'urgent'], [1]);
    expect(textTerms(query).map((t) => t.value)).toEqual(['invoice', 'urgent']);
    const seen: string[] = [];
    expect(
      matchAll(msg({}), query, (key, value) => {
        seen.push(`${key}:${value}`);
        return value === 'urgent';
      }),
    ).toBe(true);
    expect(seen).toEqual(['body:invoice', 'text:urgent']);
  });
});
