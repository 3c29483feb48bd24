import binaryToBase64 from '@mailbridge/imap-core/lib/indexer/binary-to-base64';
import type { AccountView } from '../domain/account-view';
import { catenate, TooBig } from '../domain/catenate';
import type { CatenateMessage } from './engine';
import { ImapError } from './imap-error';
import { parseMessageUrl } from './imap-url';

/**
 * One message of a CATENATE APPEND (RFC 4469) built from its parts: the URLs read as relative
 * IMAP URLs of the account (imap-url.ts), resolved by the domain (domain/catenate.ts). Binary
 * input, as Dovecot reads RFC 4469 5: a message whose first part is a literal8 has its binary
 * parts stored base64 encoded, as an APPEND of a literal8 does; a literal8 after a first part
 * that is not one is NO [UNKNOWN-CTE], unless a part before it fails first (BADURL, TOOBIG).
 */
export async function buildMessage(
  view: AccountView,
  message: CatenateMessage,
  selected: string | null,
  limit: number,
): Promise<Buffer> {
  const parts = message.parts.map((p) =>
    'url' in p ? { url: p.url, ref: parseMessageUrl(p.url, selected) } : { text: p.text },
  );
  const misplaced = message.literal8 ? -1 : message.parts.findIndex((p) => 'text' in p && p.literal8);
  if (misplaced >= 0) {
    // the first part that fails decides, as Dovecot reads them: a bad URL before this one
    await catenate(view, parts.slice(0, misplaced), limit);
    throw new ImapError('UNKNOWN-CTE', 'Binary input allowed only when the first part is binary');
  }
  const raw = await catenate(view, parts, limit);
  if (!message.literal8) return raw;
  const converted = await binaryToBase64(raw);
  if (converted.length > limit) throw new TooBig(limit);
  return converted;
}
