import { TextDecoder } from 'node:util';
import { smtpError } from './error-map';

/**
 * Raw 8-bit bytes in a submitted header. UTF-8 is what RFC 6532 allows and the parser reads.
 * Anything else is what older clients write in the charset of the message text (a Latin-1
 * "Grüße" in the Subject): it is decoded with the charset the first text part declares. With
 * no such declaration the bytes cannot be read for sure, and the message is refused with a 554
 * that says how to fix it, instead of being sent with replacement characters.
 */

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Byte offset of the empty line that ends the header (the whole message if there is none). */
function headerEnd(raw: Buffer): number {
  const crlf = raw.indexOf('\r\n\r\n');
  const lf = raw.indexOf('\n\n');
  const ends = [crlf, lf].filter((i) => i >= 0);
  return ends.length ? Math.min(...ends) : raw.length;
}

/** The charset parameter of the first text/* Content-Type anywhere in the message. */
function declaredCharset(raw: Buffer): string | null {
  const unfolded = raw.toString('latin1').replace(/\r?\n[ \t]+/g, ' ');
  return /^Content-Type:[ \t]*text\/[^\r\n]*?;[^\r\n]*?charset="?([A-Za-z0-9_.:-]+)/im.exec(unfolded)?.[1] ?? null;
}

function legacyDecoder(charset: string | null): TextDecoder | null {
  if (!charset || /^(utf-?8|us-ascii)$/i.test(charset)) return null;
  try {
    return new TextDecoder(charset);
  } catch {
    return null; // a charset Node does not know
  }
}

/** The message with its header in UTF-8; throws an SMTP 554 when the header's charset is unknown. */
export function utf8Headers(raw: Buffer): Buffer {
  const end = headerEnd(raw);
  const header = raw.subarray(0, end);
  if (!header.some((b) => b >= 0x80)) return raw;
  try {
    utf8.decode(header);
    return raw;
  } catch {
    // not UTF-8: a legacy charset
  }
  const decoder = legacyDecoder(declaredCharset(raw));
  if (!decoder) {
    const field = header
      .toString('latin1')
      .split(/\r?\n/)
      .find((line) => /[\x80-\xff]/.test(line))
      ?.split(':')[0];
    throw smtpError({
      code: 554,
      enhanced: '5.6.0',
      text: `Header ${field} holds 8-bit bytes that are not UTF-8 and no charset names them: MIME-encode the header (RFC 2047) or write it in UTF-8`,
    });
  }
  return Buffer.concat([Buffer.from(decoder.decode(header), 'utf8'), raw.subarray(end)]);
}
