/** True for loopback peers, where plaintext credentials never leave the machine. */
export function isLoopback(address: string | undefined): boolean {
  return (
    !!address &&
    (address.startsWith('127.') ||
      address === '::1' ||
      address === '::ffff:127.0.0.1' ||
      address.startsWith('::ffff:127.'))
  );
}
