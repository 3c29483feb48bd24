import {
  type Connector,
  ConnectorError,
  type ConnectorFailure,
  type FlagChange,
  type Lane,
  type MailFolder,
  OutcomeUnknownError,
} from '../domain/connector';
import type { Logger } from '../log';
import type { Config } from '../config';
import type { MailboxApi, VendorApi, VendorFlagChange } from './api';
import type { Assumptions } from './assumptions';
import { type CompositionSettings, composedMessages } from './composition';
import { type ErrorKind, NeedsNewTokensError, TransportError, VendorError } from './errors';
import type { VendorMessage, VendorThread } from './types';
import { toMailMessage } from './vendor-message';
import { type SendRoute, vendorSubmission } from './vendor-submission';

/**
 * The domain's Connector (domain/connector.ts) over one mailbox of the HTTP/JSON vendor: lists
 * through list_threads, reads through get_messages with the includes the assumptions name,
 * writes through the command endpoint, sends through the send route or the send command
 * (./vendor-submission.ts). Every answer leaves here in the domain's model.
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

const failures: Partial<Record<ErrorKind, ConnectorFailure>> = {
  auth: 'credentials',
  account: 'credentials',
  unsupported: 'unsupported',
  not_found: 'not_found',
  invalid: 'refused',
  rate: 'rate',
};

/** The vendor's failure in the domain's terms; a lost write's answer passes as it is. */
function connectorError(err: unknown): unknown {
  if (err instanceof OutcomeUnknownError || err instanceof ConnectorError) return err;
  if (err instanceof NeedsNewTokensError) return new ConnectorError('tokens', 'REFRESH_REFUSED', err.message, err);
  if (err instanceof TransportError) return new ConnectorError('unreachable', 'TRANSPORT', err.message, err);
  if (err instanceof VendorError)
    return new ConnectorError(failures[err.kind] ?? 'unavailable', err.code, err.message, err);
  return err;
}

/** `answer`, failing with a ConnectorError. */
function translated<T>(answer: Promise<T>): Promise<T> {
  return answer.catch((err: unknown) => {
    throw connectorError(err);
  });
}

const mailFolder = ({ name, role, total, unread }: MailFolder): MailFolder => ({ name, role, total, unread });

export function vendorConnector(
  api: MailboxApi,
  send: SendRoute,
  assumptions: Assumptions,
  composition: CompositionSettings,
  logger: Logger,
): Connector {
  const inModel = async (answer: Promise<{ messages: VendorMessage[]; notFound: string[] }>) => {
    const { messages, notFound } = await answer;
    return { messages: messages.map(toMailMessage), notFound };
  };
  const search = async (text: string, folder: string | null, lane?: Lane) => {
    try {
      return await api.search({ query: text, ...(folder === null ? {} : { folder }) }, lane);
    } catch (err) {
      if (err instanceof VendorError && err.kind === 'unsupported') return null;
      throw err;
    }
  };
  return {
    mailbox: api.mailbox,
    labelsKeptEmpty: assumptions.emptyLabelsListed,
    listFolders: (lane) =>
      translated(api.folderList(lane).then(({ folders, labels }) => ({ folders: folders.map(mailFolder), labels }))),
    listMessages: (scope, cursor, lane) =>
      translated(
        api
          .listThreads({ ...scope, limit: assumptions.commands.listThreads.maxLimit, cursor }, lane)
          .then(({ threads, nextCursor }) => ({
            ids: threads.flatMap((t) => threadIds(t, assumptions.threadMessageUidsField)),
            nextCursor,
          })),
      ),
    getMessages: (ids, detail, lane, partsAfter) =>
      detail === 'content'
        ? translated(
            composedMessages(api, assumptions, composition, logger, ids, contentInclude, lane, partsAfter),
          ).then(({ later, ...now }) =>
            later ? { ...now, later: { messages: later.messages, composed: translated(later.composed) } } : now,
          )
        : translated(inModel(api.getMessages(ids, assumptions.metadataInclude, lane))),
    readBack: (ids, lane) => translated(inModel(api.readBack(ids, lane))),
    search: (text, folder, lane) => translated(search(text, folder, lane)),
    setFlags: (ids, change, lane) => translated(api.setFlags(ids, vendorFlagChange(change), lane)),
    label: (ids, change, lane) => translated(api.label(ids, change, lane)),
    move: (ids, folder, lane) => translated(api.move(ids, folder, lane)),
    attachment: (messageId, attachmentId, lane) => translated(api.raw(messageId, attachmentId, lane)),
    ...vendorSubmission(api, send, assumptions),
  };
}

/** The connector of each mailbox the vendor client serves, as the config sets them up. */
export function vendorConnectors(vendor: VendorApi, config: Config, logger: Logger): (mailbox: string) => Connector {
  const composition = {
    ...config.messages,
    authservId: config.messages.authservId ?? new URL(config.vendor.readUrl).hostname,
  };
  return (mailbox) =>
    vendorConnector(vendor.mailbox(mailbox), (req) => vendor.send(req), config.assumptions, composition, logger);
}
