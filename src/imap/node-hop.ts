import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { accountId } from '../model/account-id';

/**
 * How a node that forwards a session proves to the owner that it is a node of the cluster,
 * and tells it the client's address (as Dovecot's director passes x-originating-ip to a
 * backend it trusts). The forwarding node authenticates with SASL PLAIN (RFC 4616): the
 * authorization identity is the mailbox, the authentication identity names the client's
 * address, and the password is an HMAC over the owner's greeting nonce, the mailbox and that
 * address, keyed from the state key every node holds. The nonce is the connection id the
 * owner sent in its greeting, so an answer is good for that connection only.
 */

const hopPrefix = 'mailbridge-node ';

/** The key node hops are signed with: derived from the state key, never the key itself. */
export function hopKey(stateKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', stateKey, '', 'mailbridge node hop v1', 32));
}

function proof(key: Buffer, nonce: string, mailbox: string, client: string): Buffer {
  return createHmac('sha256', key)
    .update(`${nonce}\0${accountId(mailbox)}\0${client}`)
    .digest();
}

/** The SASL PLAIN initial response of a hop, base64. */
export function hopResponse(key: Buffer, nonce: string, mailbox: string, client: string): string {
  const password = proof(key, nonce, mailbox, client).toString('base64url');
  return Buffer.from(`${mailbox}\0${hopPrefix}${client}\0${password}`).toString('base64');
}

/** The client's address a hop vouches for, or null when these credentials are not a valid hop. */
export function verifyHop(
  key: Buffer,
  nonce: string,
  login: { authzid: string; username: string; password: string },
): string | null {
  if (!login.authzid || !login.username.startsWith(hopPrefix)) return null;
  const client = login.username.slice(hopPrefix.length);
  const expected = proof(key, nonce, login.authzid, client);
  const given = Buffer.from(login.password, 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected) ? client : null;
}

/** The connection id at the end of an imap-core greeting (`* OK name ready for requests from ADDR ID`). */
export function greetingNonce(greeting: string): string {
  return greeting.trim().split(' ').pop() ?? '';
}
