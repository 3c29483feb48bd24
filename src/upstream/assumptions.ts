/**
 * Every assumption mailbridge makes about what the vendor spec (shared/spec/mail-api.md)
 * does NOT show lives here, one comment each. The sandbox implements exactly these
 * defaults, the README lists them, and the config file's `assumptions` key overrides any
 * of them (deep-merged), so a real vendor that differs needs a config change, not a patch.
 */

export interface CommandAssumption {
  /** Command name sent in `commands[].command`. */
  name: string;
}

export interface Assumptions {
  commands: {
    /** Documented: list_folders, no args. */
    listFolders: CommandAssumption;
    /** Documented name and args folder/is_read/limit; pagination assumed below. */
    listThreads: CommandAssumption & {
      /** A1: largest `limit` the vendor accepts (spec: "default and maximum not shown"). */
      maxLimit: number;
      /** A2: pagination arg carrying the opaque cursor returned by the previous page. */
      cursorArg: string;
      /** A3: result field holding the cursor of the next page; null/absent on the last page. */
      nextCursorField: string;
      /**
       * A22: arg that lists by label instead of folder: threads holding a message that carries
       * the label, in any folder; the thread's message uids are then those carrying the label.
       */
      labelArg: string;
    };
    /** Documented: get_messages with ids (<=50) or id, include. */
    getMessages: CommandAssumption;
    /** A4: full-text search. args {query, folder?, limit?, cursor?} -> {message_uids[], next_cursor}. */
    search: CommandAssumption;
    /** A5: flags. args {ids (<=50), is_read?, is_starred?, is_important?} -> {updated[], not_found[]}. */
    flag: CommandAssumption;
    /** A6: labels. args {ids (<=50), add?: string[], remove?: string[]} -> {updated[], not_found[]}. */
    label: CommandAssumption;
    /** A7: move. args {ids (<=50), folder} -> {moved[], not_found[]}; a message has one folder after a move. */
    move: CommandAssumption;
    /**
     * A8: send from the mailbox. args {to: [{email,name?}], cc?, bcc?, subject, html?, text?,
     * in_reply_to?, references?} -> {message_uid}; every recipient's copy shows To and Cc, none
     * shows Bcc. Used for submission when submission.recipients is "command".
     * A26: it also takes `attachments` in the shape of A16's, `reply_to` (an address), and
     * `message_id`, the Message-ID the sent message gets (so a client's Sent copy can be matched).
     */
    send: CommandAssumption;
    /** A9: reply. args {message_uid, html?, text?} -> {message_uid}. Not used by the bridge yet. */
    reply: CommandAssumption;
  };
  /**
   * A10: list_folders result data is {folders: [{name, role, total, unread}]} where role is one of
   * inbox|sent|drafts|trash|spam|archive or null, total/unread are message counts.
   */
  folderListField: string;
  /** A21: list_folders result data also holds the mailbox's label names here (string[]). */
  labelListField: string;
  /**
   * A11: thread fields besides last_message_uid: thread_id, subject, message_count,
   * last_received_at and message_uids (uids of the thread's messages IN THE LISTED FOLDER,
   * oldest first). Threads come newest activity first.
   */
  threadMessageUidsField: string;
  /** A12: type value of a failed top-level response or command result. */
  errorType: string;
  /**
   * A13: command error codes meaning "this command does not exist here". The bridge answers
   * NO [CANNOT] for these instead of treating them as a transient failure.
   */
  unsupportedCommandCodes: string[];
  /** A14: get_messages with include: [] returns the base fields only (no body, no attachments). */
  metadataInclude: string[];
  /** A15: token refresh response body is {access_token, refresh_token, expires_in (seconds)}. */
  tokenRefresh: { accessField: string; refreshField: string; expiresInField: string };
  /**
   * A16: /v3.0/send optional fields: text (plain body), cc/bcc (comma separated strings),
   * replyTo, headers (object, e.g. Message-ID, In-Reply-To, References), attachments
   * [{filename, content (base64), contentType, contentId?}]. `to` is one address, so the
   * bridge makes one call per envelope recipient.
   * A25: `headers` may carry To and Cc; the delivered message shows them instead of the single
   * `to`, which alone decides delivery. That is how every recipient sees the others.
   * A27: addresses (`to`, `from`, the send command's) may be UTF-8 (RFC 6531, SMTPUTF8).
   */
  send: { optionalFields: { text: string; replyTo: string; headers: string; attachments: string } };
  /** A17: send request validation failures are HTTP 400 {error, code: VALIDATION_ERROR}. */
  sendValidationCode: string;
  /**
   * A18: sender creation is POST {graph_url}/v3.0/senders {domain, local_part?, name?} ->
   * {success, sender: {email, domain}}; mailbox tokens are then generated in webmail.
   */
  senderPath: string;
  /** A19: quarantine release success body is {success: true, id} (id of the queued email). */
  releaseIdField: string;
  /**
   * A20: result field names of the assumed commands: the uid list of search (A4), the
   * confirmed ids of flag/label (A5/A6) and of move (A7), and the unknown ids of those writes
   * (named like get_messages' documented not_found).
   */
  resultFields: { searchUids: string; updated: string; moved: string; notFound: string };
  fullHeaders: {
    /** The get_messages include value that returns full_headers (documented); '' to never ask for it. */
    include: string;
    /**
     * A23: full_headers.headers_json is an object from header field name to its value as a
     * string (a repeated field: an array of strings), the values as in the original message.
     */
    headersField: string;
    /**
     * A24: full_headers' spf_result, dkim_result and dmarc_result are RFC 8601 result keywords
     * (pass, fail, softfail, neutral, none, temperror, permerror); anything else falls back to
     * pass/fail from the documented spf_success/dkim_success/dmarc_success booleans.
     */
    resultFields: { spf: string; dkim: string; dmarc: string };
  };
}

export const defaultAssumptions: Assumptions = {
  commands: {
    listFolders: { name: 'list_folders' },
    listThreads: {
      name: 'list_threads',
      maxLimit: 100,
      cursorArg: 'cursor',
      nextCursorField: 'next_cursor',
      labelArg: 'label',
    },
    getMessages: { name: 'get_messages' },
    search: { name: 'search' },
    flag: { name: 'flag' },
    label: { name: 'label' },
    move: { name: 'move' },
    send: { name: 'send' },
    reply: { name: 'reply' },
  },
  folderListField: 'folders',
  labelListField: 'labels',
  threadMessageUidsField: 'message_uids',
  errorType: 'ERROR',
  unsupportedCommandCodes: ['UNKNOWN_COMMAND'],
  metadataInclude: [],
  tokenRefresh: { accessField: 'access_token', refreshField: 'refresh_token', expiresInField: 'expires_in' },
  send: { optionalFields: { text: 'text', replyTo: 'replyTo', headers: 'headers', attachments: 'attachments' } },
  sendValidationCode: 'VALIDATION_ERROR',
  senderPath: '/v3.0/senders',
  releaseIdField: 'id',
  resultFields: { searchUids: 'message_uids', updated: 'updated', moved: 'moved', notFound: 'not_found' },
  fullHeaders: {
    include: 'full_headers',
    headersField: 'headers_json',
    resultFields: { spf: 'spf_result', dkim: 'dkim_result', dmarc: 'dmarc_result' },
  },
};

type DeepPartial<T> = {
  [K in keyof T]?: T[K] extends object ? (T[K] extends unknown[] ? T[K] : DeepPartial<T[K]>) : T[K];
};
export type AssumptionOverrides = DeepPartial<Assumptions>;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function deepMerge<T>(base: T, over: unknown): T {
  if (!isPlainObject(base) || !isPlainObject(over)) return (over === undefined ? base : over) as T;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = deepMerge((base as Record<string, unknown>)[k], v);
  return out as T;
}

/** Defaults with the config file's `assumptions` overrides applied. */
export function resolveAssumptions(overrides: AssumptionOverrides | undefined): Assumptions {
  return deepMerge(defaultAssumptions, overrides ?? {});
}
