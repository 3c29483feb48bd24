import { type DeepPartial, deepMerge } from '../util/deep-merge';

/**
 * What the emulated vendor does where the spec (shared/spec/mail-api.md) is silent: command and
 * field names, paging, error codes. Deliberately a separate definition from the bridge's
 * src/upstream/assumptions.ts: the sandbox is the other party of the contract, so a change on
 * either side shows up as a failing end-to-end or contract test (test/contract) instead of both
 * sides drifting together. A test that wants a differently shaped vendor overrides these
 * explicitly (SandboxOptions.wireFormat), just as the bridge's config overrides its assumptions.
 * The comments name the assumption ids of docs/vendor.md.
 */
export interface WireFormat {
  commands: {
    listFolders: { name: string };
    /** A1 maxLimit, A2 cursorArg, A3 nextCursorField, A22 labelArg. */
    listThreads: { name: string; maxLimit: number; cursorArg: string; nextCursorField: string; labelArg: string };
    getMessages: { name: string };
    /** A4. */
    search: { name: string };
    /** A5. */
    flag: { name: string };
    /** A6. */
    label: { name: string };
    /** A7. */
    move: { name: string };
    /** A8. */
    send: { name: string };
    /** A9. */
    reply: { name: string };
  };
  /** A10: list_folders data field holding [{name, role, total, unread}]. */
  folderListField: string;
  /** A21: list_folders data field holding the label names. */
  labelListField: string;
  /** A29: list_folders keeps listing a label after its last message lost it (false: only labels in use). */
  emptyLabelsListed: boolean;
  /** A11: thread field listing the uids of the thread's messages in the listed folder. */
  threadMessageUidsField: string;
  /** A12: `type` of a failed response or command result. */
  errorType: string;
  /** A13: command error code of a command this vendor does not have. */
  unknownCommandCode: string;
  /** A15: token refresh answer fields. */
  tokenRefresh: { accessField: string; refreshField: string; expiresInField: string };
  /** A16: optional /v3.0/send fields. */
  send: { optionalFields: { text: string; replyTo: string; headers: string; attachments: string } };
  /** A17: code of a send (or sender creation) that fails validation, HTTP 400. */
  sendValidationCode: string;
  /** A18: path of sender creation on the management host. */
  senderPath: string;
  /** A19: field of the release answer carrying the queued email's id. */
  releaseIdField: string;
  /** A20: result fields of search, flag/label, move and the unknown ids of writes. */
  resultFields: { searchUids: string; updated: string; moved: string; notFound: string };
  /** A23: token refreshes and requests refused as TOKEN_EXPIRED count against the mailbox's limit. */
  limitCountsTokenRequests: boolean;
}

export type WireFormatOverrides = DeepPartial<WireFormat>;

export const sandboxWireFormat: WireFormat = {
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
  unknownCommandCode: 'UNKNOWN_COMMAND',
  tokenRefresh: { accessField: 'access_token', refreshField: 'refresh_token', expiresInField: 'expires_in' },
  send: { optionalFields: { text: 'text', replyTo: 'replyTo', headers: 'headers', attachments: 'attachments' } },
  sendValidationCode: 'VALIDATION_ERROR',
  senderPath: '/v3.0/senders',
  releaseIdField: 'id',
  resultFields: { searchUids: 'message_uids', updated: 'updated', moved: 'moved', notFound: 'not_found' },
  limitCountsTokenRequests: true,
};

/** The sandbox's own wire format with a test's overrides applied. */
export function wireFormatWith(overrides: WireFormatOverrides | undefined): WireFormat {
  return deepMerge(sandboxWireFormat, overrides ?? {});
}
