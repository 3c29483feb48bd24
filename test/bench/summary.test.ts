import { describe, expect, test } from 'vitest';
import { summaryTable } from '../../bench/summary';

/** A bench report's `imap` part, as bench/imap.ts writes it, with Dovecot's times or without them. */
function report(dovecotMs: number | null): Record<string, unknown> {
  const ordering = {
    ms: 75,
    firstMs: 71,
    vendorRequests: 0,
    dovecot: dovecotMs === null ? null : { ms: dovecotMs, firstMs: 300 },
    bridgeOverDovecot: dovecotMs === null ? null : +(75 / dovecotMs).toFixed(2),
  };
  return {
    imap: {
      fetch: {
        orderings: { 'UID SORT (DATE) UTF-8 ALL': ordering },
        warm: { imapflowMs: 569 },
        dovecotWarm: { imapflowMs: dovecotMs === null ? null : 600 },
      },
    },
  };
}

describe('bench summary table', () => {
  test('with Dovecot, each row gives the ratio', () => {
    const table = summaryTable(report(150));
    expect(table).toContain('| warm `UID SORT (DATE) UTF-8 ALL` against Dovecot | 75 ms / 150 ms = 0.5x time,');
    expect(table).toContain('569 ms / 600 ms = 0.95x time');
  });

  test('without Dovecot (BENCH_DOVECOT=0), a row says n/a, not a ratio of n/a', () => {
    const table = summaryTable(report(null));
    expect(table).toContain('75 ms / n/a ms = n/a time,');
    expect(table).toContain('569 ms / n/a ms = n/a time');
    expect(table).not.toMatch(/n\/ax/);
  });
});
