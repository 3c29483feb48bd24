import { z } from 'zod';
import { deepMerge, type DeepPartial } from '../util/deep-merge';

/**
 * Every assumption mailbridge makes about what the vendor spec (shared/spec/mail-api.md)
 * does NOT show lives here, one comment each. The sandbox implements the same defaults from
 * its own definition (src/sandbox/wire-format.ts, checked against hand-written fixtures in
 * test/contract), docs/vendor.md lists them, and the config file's `assumptions` key overrides any
 * of them (deep-merged, validated like every other config section), so a real vendor that
 * differs needs a config change, not a patch.
 */

const name = z.string().min(1, 'must be a non-empty name, e.g. "search"');
const field = z.string().min(1, 'must be a non-empty JSON field name');

/** Command name sent in `commands[].command`. */
const command = { name };

const assumptionsSchema = z
  .object({
    commands: z
      .object({
        /** Documented: list_folders, no args. */
        listFolders: z.object(command).strict(),
        /** Documented name and args folder/is_read/limit; pagination assumed below. */
        listThreads: z
          .object({
            ...command,
            /** A1: largest `limit` the vendor accepts (spec: "default and maximum not shown"). */
            maxLimit: z.number().int().min(1),
            /** A2: pagination arg carrying the opaque cursor returned by the previous page. */
            cursorArg: field,
            /** A3: result field holding the cursor of the next page; null/absent on the last page. */
            nextCursorField: field,
            /**
             * A22: arg that lists by label instead of folder: threads holding a message that carries
             * the label, in any folder; the thread's message uids are then those carrying the label.
             */
            labelArg: field,
          })
          .strict(),
        /** Documented: get_messages with ids (<=50) or id, include. */
        getMessages: z.object(command).strict(),
        /**
         * A4: full-text search. args {query, folder?, limit?, cursor?} -> {message_uids[], next_cursor};
         * a message matches when its decoded subject, names, addresses or body text contain the
         * query, letter case aside, with accented letters composed and without compatibility forms
         * (fullwidth letters, ligatures). The bridge checks every hit on its own copy, so a broader
         * match costs reads, never a wrong answer.
         */
        search: z.object(command).strict(),
        /**
         * A5: flags. args {ids (<=50), is_read?, is_starred?, is_important?} -> {updated[], not_found[]};
         * each field given is set to that value, so one a message already has changes nothing.
         */
        flag: z.object(command).strict(),
        /**
         * A6: labels. args {ids (<=50), add?: string[], remove?: string[]} -> {updated[], not_found[]};
         * adding a label a message has, or removing one it lacks, changes nothing and is no error.
         */
        label: z.object(command).strict(),
        /** A7: move. args {ids (<=50), folder} -> {moved[], not_found[]}; one folder per message after a move. */
        move: z.object(command).strict(),
        /**
         * A8: send from the mailbox. args {to: [{email,name?}], cc?, bcc?, subject, html?, text?,
         * in_reply_to?, references?} -> {message_uid}; every recipient's copy shows To and Cc, none
         * shows Bcc. Used for submission when submission.recipients is "command".
         * A27: it also takes `attachments` in the shape of A16's, `reply_to` (an address), and
         * `message_id`, the Message-ID the sent message gets (so a client's Sent copy can be matched).
         */
        send: z.object(command).strict(),
        /** A9: reply. args {message_uid, html?, text?} -> {message_uid}. Not used by the bridge yet. */
        reply: z.object(command).strict(),
      })
      .strict(),
    /**
     * A10: list_folders result data is {folders: [{name, role, total, unread}]} where role is one of
     * inbox|sent|drafts|trash|spam|archive or null, total/unread are message counts.
     */
    folderListField: field,
    /** A21: list_folders result data also holds the mailbox's label names here (string[]). */
    labelListField: field,
    /**
     * A29: a label exists at the vendor while a message carries it. No command creates, renames
     * or deletes a label: the label command's `add` (A6) makes a new one, and list_folders (A21)
     * lists only labels some message carries, so a label whose last message lost it is gone.
     * That is how the bridge renames and deletes a label folder (the label moved to another
     * name, or taken off, message by message) and keeps a created one locally until it is used.
     * Label names are exact strings, letter case included, as mailbox names are.
     * true: the vendor keeps listing a label after its last message lost it; the bridge then
     * refuses RENAME and DELETE of a label the vendor has, which would leave the old name listed.
     */
    emptyLabelsListed: z.boolean(),
    /**
     * A11: thread fields besides last_message_uid: thread_id, subject, message_count,
     * last_received_at and message_uids (uids of the thread's messages IN THE LISTED FOLDER,
     * oldest first). Threads come newest activity first.
     */
    threadMessageUidsField: field,
    /** A12: type value of a failed top-level response or command result. */
    errorType: field,
    /**
     * A13: command error codes meaning "this command does not exist here". The bridge answers
     * NO [CANNOT] for these instead of treating them as a transient failure.
     */
    unsupportedCommandCodes: z.array(field),
    /** A14: get_messages with include: [] returns the base fields only (no body, no attachments). */
    metadataInclude: z.array(field),
    /** A15: token refresh response body is {access_token, refresh_token, expires_in (seconds)}. */
    tokenRefresh: z.object({ accessField: field, refreshField: field, expiresInField: field }).strict(),
    /**
     * A16: /v3.0/send optional fields: text (plain body), cc/bcc (comma separated strings),
     * replyTo, headers (object, e.g. Message-ID, In-Reply-To, References), attachments
     * [{filename, content (base64), contentType, contentId?}]. `to` is one address, so the
     * bridge makes one call per envelope recipient.
     * A26: `headers` may carry To and Cc; the delivered message shows them instead of the single
     * `to`, which alone decides delivery. That is how every recipient sees the others.
     * A28: addresses (`to`, `from`, the send command's) may be UTF-8 (RFC 6531, SMTPUTF8).
     */
    send: z
      .object({
        optionalFields: z.object({ text: field, replyTo: field, headers: field, attachments: field }).strict(),
      })
      .strict(),
    /** A17: send request validation failures are HTTP 400 {error, code: VALIDATION_ERROR}. */
    sendValidationCode: field,
    /**
     * A18: sender creation is POST {graph_url}/v3.0/senders {domain, local_part?, name?} ->
     * {success, sender: {email, domain}}; mailbox tokens are then generated in webmail.
     */
    senderPath: z.string().regex(/^\//, 'must be a path starting with "/", e.g. "/v3.0/senders"'),
    /** A19: quarantine release success body is {success: true, id} (id of the queued email). */
    releaseIdField: field,
    /**
     * A20: result field names of the assumed commands: the uid list of search (A4), the
     * confirmed ids of flag/label (A5/A6) and of move (A7), and the unknown ids of those writes
     * (named like get_messages' documented not_found).
     */
    resultFields: z.object({ searchUids: field, updated: field, moved: field, notFound: field }).strict(),
    /**
     * A23: the vendor counts against a mailbox's limit (15 a second, 15 in flight) every request
     * it can tie to the mailbox: token refreshes (by their refresh token) and requests refused
     * as TOKEN_EXPIRED too. The bridge's gate counts them either way (it cannot know); the
     * sandbox counts them only when this is true.
     */
    limitCountsTokenRequests: z.boolean(),
    fullHeaders: z
      .object({
        /** The get_messages include value that returns full_headers (documented); '' to never ask for it. */
        include: z.string(),
        /**
         * A24: full_headers.headers_json is an object from header field name to its value as a
         * string (a repeated field: an array of strings), the values as in the original message.
         */
        headersField: field,
        /**
         * A25: full_headers' spf_result, dkim_result and dmarc_result are RFC 8601 result keywords
         * (pass, fail, softfail, neutral, none, temperror, permerror); anything else falls back to
         * pass/fail from the documented spf_success/dkim_success/dmarc_success booleans.
         */
        resultFields: z.object({ spf: field, dkim: field, dmarc: field }).strict(),
      })
      .strict(),
  })
  .strict();

export type Assumptions = z.infer<typeof assumptionsSchema>;
export type AssumptionOverrides = DeepPartial<Assumptions>;

/** The same shape with every key optional at every depth; unknown keys are refused like elsewhere in the config. */
function overridable(schema: z.ZodType): z.ZodType {
  if (!(schema instanceof z.ZodObject)) return schema;
  const shape = Object.fromEntries(
    Object.entries(schema.shape as Record<string, z.ZodType>).map(([k, v]) => [k, overridable(v).optional()]),
  );
  return z.object(shape).strict();
}

/** The config file's `assumptions` section. */
export const assumptionOverridesSchema = overridable(assumptionsSchema) as z.ZodType<AssumptionOverrides>;

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
  emptyLabelsListed: false,
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
  limitCountsTokenRequests: true,
  fullHeaders: {
    include: 'full_headers',
    headersField: 'headers_json',
    resultFields: { spf: 'spf_result', dkim: 'dkim_result', dmarc: 'dmarc_result' },
  },
};

/** Defaults with the config file's `assumptions` overrides applied. */
export function resolveAssumptions(overrides: AssumptionOverrides | undefined): Assumptions {
  return deepMerge(defaultAssumptions, overrides ?? {});
}
