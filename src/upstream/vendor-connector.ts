import type { Connector, FlagChange, MailFolder } from '../domain/connector';
import type { Logger } from '../log';
import type { MailboxApi, VendorFlagChange } from './api';
import type { Assumptions } from './assumptions';
import { type CompositionSettings, composedMessages } from './composition';
import { VendorError } from './errors';
import type { VendorMessage, VendorThread } from './types';
import { toMailMessage } from './vendor-message';

/**
 * The domain's Connector (domain/connector.ts) over one mailbox of the HTTP/JSON vendor: lists
 * through list_threads, reads through get_messages with the includes the assumptions name,
 * writes through the command endpoint. Every answer leaves here in the domain's model.
 */

/** Include list of a content read: body and attachment list, headers for the spam and auth info. */
const contentInclude = ['body', 'attachments', 'headers'];

const flagFields: Array<[keyof FlagChange, keyof VendorFlagChange]> = [
  ['seen', 'is_read'],
  ['flagged', 'is_starred'],
  ['important', 'is_important'],
];

function vendorFlagChange(change: FlagChange): VendorFlagChange {
  const out: VendorFlagChange = {};
  for (const [field, vendorField] of flagFields) if (change[field] !== undefined) out[vendorField] = change[field];
  return out;
}

/** A thread's message ids (A11's field, named by the assumptions); its last message when absent. */
function threadIds(t: VendorThread, field: string): string[] {
  const ids = (t as unknown as Record<string, unknown>)[field];
  return Array.isArray(ids) ? (ids as string[]) : [t.last_message_uid];
}

const mailFolder = ({ name, role, total, unread }: MailFolder): MailFolder => ({ name, role, total, unread });

export function vendorConnector(
  api: MailboxApi,
  assumptions: Assumptions,
  composition: CompositionSettings,
  logger: Logger,
): Connector {
  const inModel = async (answer: Promise<{ messages: VendorMessage[]; notFound: string[] }>) => {
    const { messages, notFound } = await answer;
    return { messages: messages.map(toMailMessage), notFound };
  };
  return {
    mailbox: api.mailbox,
    async listFolders(lane) {
      const { folders, labels } = await api.folderList(lane);
      return { folders: folders.map(mailFolder), labels };
    },
    async listMessages(scope, cursor, lane) {
      const { threads, nextCursor } = await api.listThreads(
        { ...scope, limit: assumptions.commands.listThreads.maxLimit, cursor },
        lane,
      );
      return { ids: threads.flatMap((t) => threadIds(t, assumptions.threadMessageUidsField)), nextCursor };
    },
    getMessages: (ids, detail, lane) =>
      detail === 'content'
        ? composedMessages(api, assumptions, composition, logger, ids, contentInclude, lane)
        : inModel(api.getMessages(ids, assumptions.metadataInclude, lane)),
    readBack: (ids, lane) => inModel(api.readBack(ids, lane)),
    async search(text, folder, lane) {
      try {
        return await api.search({ query: text, ...(folder === null ? {} : { folder }) }, lane);
      } catch (err) {
        if (err instanceof VendorError && err.kind === 'unsupported') return null;
        throw err;
      }
    },
    setFlags: (ids, change, lane) => api.setFlags(ids, vendorFlagChange(change), lane),
    label: (ids, change, lane) => api.label(ids, change, lane),
    move: (ids, folder, lane) => api.move(ids, folder, lane),
    attachment: (messageId, attachmentId, lane) => api.raw(messageId, attachmentId, lane),
  };
}
