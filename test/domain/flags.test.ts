import { describe, expect, test } from 'vitest';
import { diffVendorFlags, isLocalFlag, labelToKeyword, mergeFlags, vendorFlags } from '../../src/domain/flags';

describe('flag mapping', () => {
  test('vendor state becomes IMAP flags, labels become keywords when they are atoms', () => {
    const flags = vendorFlags({
      seen: true,
      flagged: false,
      important: true,
      labels: ['Work', 'two words', 'Rechnung'],
    });
    expect(flags).toEqual(['\\Seen', '$Important', 'Work', 'Rechnung']);
    expect(labelToKeyword('two words')).toBeNull();
  });

  test('local flags are kept apart from vendor-backed ones', () => {
    expect(isLocalFlag('\\Answered')).toBe(true);
    expect(isLocalFlag('$Forwarded')).toBe(true);
    expect(isLocalFlag('NonJunk')).toBe(true);
    expect(isLocalFlag('\\Seen')).toBe(false);
    expect(isLocalFlag('$Important')).toBe(false);
    expect(isLocalFlag('Work')).toBe(false);
    expect(mergeFlags(['\\Seen', 'Work'], ['\\Answered', 'Old', '\\Seen'])).toEqual(['\\Seen', 'Work', '\\Answered']);
  });

  test('diff names exactly the vendor calls needed', () => {
    const d = diffVendorFlags(['\\Seen', 'Work', '\\Answered'], ['\\Flagged', 'Home', '\\Answered', '\\Deleted']);
    expect(d.change).toEqual({ seen: false, flagged: true });
    expect(d.addLabels).toEqual(['Home']);
    expect(d.removeLabels).toEqual(['Work']);
  });
});
