import { expect, test } from 'vitest';
import { offersCompression } from '../../src/imap/compression-offer';

test('"remote" offers COMPRESS to clients on other machines only', () => {
  for (const address of ['192.0.2.7', '10.1.2.3', '2001:db8::1', '::ffff:192.0.2.7'])
    expect(offersCompression('remote', address), address).toBe(true);
  for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1'])
    expect(offersCompression('remote', address), address).toBe(false);
});

test('"always" and "never" do not look at the address', () => {
  for (const address of ['127.0.0.1', '192.0.2.7', undefined]) {
    expect(offersCompression('always', address)).toBe(true);
    expect(offersCompression('never', address)).toBe(false);
  }
});
