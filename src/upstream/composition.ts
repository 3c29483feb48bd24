import type { Composition, MailMessage } from '../domain/message';
import type { LaterMessages } from '../domain/connector';
import type { Logger } from '../log';
import type { MailboxApi } from './api';
import type { Assumptions } from './assumptions';
import type { Lane } from './rate-limiter';
import type { VendorMessage } from './types';
import { VendorError } from './errors';
import { toMailMessage } from './vendor-message';

/**
 * What a message is composed from besides the vendor's JSON (mime/compose.ts), derived once
 * when the bridge first reads the message and stored with it: the original header fields the
 * vendor keeps in full_headers (A24), the RFC 8601 results (A25), the spam score, and the
 * bytes of message/* attachments (bounce and complaint reports), which MIME requires inline
 * as 7bit/8bit. Settings that shape the message (authserv-id, spam threshold) are applied
 * here, so a later config change never alters a message already served.
 */

export interface CompositionSettings {
  /** authserv-id of Authentication-Results: the vendor, who checked SPF/DKIM/DMARC. */
  authservId: string;
  /** X-Spam-Flag: YES from this spam_score on. */
  spamFlagThreshold: number;
  /** message/* attachments up to this size are fetched and served inline; larger ones as files. */
  messagePartsUpTo: number;
}

/** Original header fields a composed message takes over from the vendor's copy of the header. */
const copiedHeaders = new Set(['reply-to', 'list-id', 'date', 'in-reply-to', 'references', 'cc']);

/** RFC 8601 result keywords (methods spf, dkim, dmarc). */
const authResults = new Set(['pass', 'fail', 'softfail', 'neutral', 'none', 'temperror', 'permerror', 'policy']);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A24: headers_json maps a field name to its value, or to the values of a repeated field. */
function originalHeaders(full: Record<string, unknown> | undefined, a: Assumptions): Record<string, string[]> {
  const json = full?.[a.fullHeaders.headersField];
  const out: Record<string, string[]> = {};
  if (!isRecord(json)) return out;
  for (const [name, value] of Object.entries(json)) {
    const key = name.toLowerCase();
    if (!copiedHeaders.has(key)) continue;
    const values = (Array.isArray(value) ? value : [value]).filter(
      (v): v is string => typeof v === 'string' && v !== '',
    );
    if (values.length) out[key] = [...(out[key] ?? []), ...values];
  }
  return out;
}

/** A25: the detailed result when it is an RFC 8601 keyword, else pass/fail from the boolean of `headers`. */
function authResult(detailed: unknown, success: unknown): string | null {
  if (typeof detailed === 'string' && authResults.has(detailed.trim().toLowerCase()))
    return detailed.trim().toLowerCase();
  return typeof success === 'boolean' ? (success ? 'pass' : 'fail') : null;
}

export function compositionOf(
  msg: VendorMessage,
  a: Assumptions,
  s: CompositionSettings,
  messageParts: Record<string, string>,
): Composition {
  const h = msg.headers;
  const full = msg.full_headers;
  const r = a.fullHeaders.resultFields;
  const spf = authResult(full?.[r.spf], h?.spf_success);
  const dkim = authResult(full?.[r.dkim], h?.dkim_success);
  const dmarc = authResult(full?.[r.dmarc], h?.dmarc_success);
  const score = typeof h?.spam_score === 'number' && Number.isFinite(h.spam_score) ? h.spam_score : null;
  return {
    version: 2,
    headers: originalHeaders(full, a),
    authentication: spf && dkim && dmarc ? { authservId: s.authservId, spf, dkim, dmarc } : null,
    spam: score === null ? null : { score, flagged: score >= s.spamFlagThreshold },
    messageParts,
  };
}

/**
 * An answer that stays the same however often it is asked for: the vendor does not have the
 * attachment, or refuses the request itself (4xx). Anything else (5xx, a lost connection, a
 * rate limit after the retries, refused credentials) says nothing about the message.
 */
function permanent(err: unknown): boolean {
  return err instanceof VendorError && (err.kind === 'not_found' || err.kind === 'invalid' || err.kind === 'gone');
}

/** The message/* attachments composing `msg` needs the bytes of (a download each). */
function partsToFetch(msg: VendorMessage, s: CompositionSettings) {
  return (msg.attachments ?? []).filter(
    (att) => /^message\//i.test(att.mime_type ?? '') && att.size_bytes <= s.messagePartsUpTo,
  );
}

/**
 * The message/* attachments' bytes. Only a permanent answer (not found, larger than the
 * configured size) leaves one out, served as a file; any other failure is thrown, so no
 * composition is stored and the next read composes again: a composition is stored once and
 * a UID's bytes never change, so one bad second of the vendor must not shape it.
 */
async function fetchMessageParts(
  api: MailboxApi,
  msg: VendorMessage,
  s: CompositionSettings,
  logger: Logger,
  lane: Lane,
): Promise<Record<string, string>> {
  const parts: Record<string, string> = {};
  for (const att of partsToFetch(msg, s)) {
    const where = { mailbox: api.mailbox, message: msg.message_uid, attachment: att.attachment_id };
    let bytes: Buffer | null;
    try {
      bytes = await api.rawBytes(msg.message_uid, att.attachment_id, s.messagePartsUpTo, lane);
    } catch (err) {
      if (!permanent(err)) throw err;
      logger.warn(
        { ...where, err: (err as Error).message },
        'message/* attachment not at the vendor; served as a file',
      );
      continue;
    }
    if (bytes) parts[att.attachment_id] = bytes.toString('base64');
    else logger.warn(where, 'message/* attachment larger than its listed size and the limit; served as a file');
  }
  return parts;
}

/**
 * Messages with everything they are composed from: a get_messages with `include` (which asks
 * for bodies) plus full_headers, each message in the model with its composition. The caller's lane goes on
 * to the message/* downloads: a click's stay in `content`. With `partsAfter`, messages that
 * need such downloads are composed only once it settles and come in `later`; the others at
 * once (a sync starts its downloads when its listing is done: see folder-sync.ts).
 */
export async function composedMessages(
  api: MailboxApi,
  a: Assumptions,
  s: CompositionSettings,
  logger: Logger,
  ids: string[],
  include: string[],
  lane: Lane,
  partsAfter?: Promise<unknown>,
): Promise<{ messages: MailMessage[]; notFound: string[]; later?: LaterMessages }> {
  const withFull = a.fullHeaders.include && !include.includes(a.fullHeaders.include);
  const { messages, notFound } = await api.getMessages(
    ids,
    withFull ? [...include, a.fullHeaders.include] : include,
    lane,
  );
  const composeAll = async (list: VendorMessage[]) => {
    const composed: MailMessage[] = [];
    // the composition holds what is used of full_headers: the model does not carry them
    for (const msg of list)
      composed.push({
        ...toMailMessage(msg),
        composition: compositionOf(msg, a, s, await fetchMessageParts(api, msg, s, logger, lane)),
      });
    return composed;
  };
  if (!partsAfter) return { messages: await composeAll(messages), notFound };
  const waiting = messages.filter((m) => partsToFetch(m, s).length);
  const now = messages.filter((m) => !partsToFetch(m, s).length);
  return {
    messages: await composeAll(now),
    notFound,
    ...(waiting.length
      ? { later: { messages: waiting.map(toMailMessage), composed: partsAfter.then(() => composeAll(waiting)) } }
      : {}),
  };
}
