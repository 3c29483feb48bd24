import type { Config } from '../config';
import { isLoopback } from '../util/net';

/**
 * Whether a client at `remoteAddress` is offered COMPRESS=DEFLATE (RFC 4978). "remote" offers
 * it to clients on other machines only: over loopback, deflating a 10,041-message metadata
 * FETCH (7.2 MB) costs the bridge about 65 ms and the client its inflating, and saves nothing.
 */
export function offersCompression(setting: Config['imapCompression'], remoteAddress: string | undefined): boolean {
  if (setting === 'remote') return !isLoopback(remoteAddress);
  return setting === 'always';
}
