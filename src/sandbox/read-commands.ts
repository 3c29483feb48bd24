import type { WireFormat } from './wire-format';
import type { Recipient, VendorMessage } from '../upstream/types';
import { ArgError, optBool, optInt, optRecipients, optString, optStrings, reqString } from './args';
import { bodyPair } from './body-format';
import { displayName } from './corpus';
import { decodeCursor, encodeCursor, keyOf, type FolderIndex, type SortKey } from './folder-index';
import { includeParts, toVendorMessage, type IncludePart, type StoredMessage } from './message';
import { filesField } from './send-request';
import type { IncomingFile, MailboxState, SandboxStore } from './store';

/** The commands of POST {read_url}/v1 (spec 4.1 and assumptions A1-A11, A14). */

export const maxIdsPerCommand = 50;
const defaultLimit = 50;

export interface CommandContext {
  store: SandboxStore;
  box: MailboxState;
  wireFormat: WireFormat;
}

type Args = Record<string, unknown>;
type CommandFn = (args: Args, ctx: CommandContext) => Record<string, unknown>;

function folderArg(args: Args, ctx: CommandContext, required: boolean): string | null {
  const name = required ? reqString(args, 'folder') : optString(args, 'folder');
  if (name === undefined) return null;
  const folder = ctx.box.folderName(name);
  if (!folder) throw new ArgError(`unknown folder: ${name}`);
  return folder;
}

/** ids (<= 50) or id; duplicates collapse. */
function idsArg(args: Args): string[] {
  const ids = optStrings(args, 'ids', maxIdsPerCommand);
  const id = optString(args, 'id');
  if (ids && id !== undefined) throw new ArgError('use either id or ids');
  const list = ids ?? (id ? [id] : []);
  if (list.length === 0) throw new ArgError('ids is required');
  return [...new Set(list)];
}

function pageArgs(args: Args, ctx: CommandContext): { limit: number; cursor: SortKey | null } {
  const max = ctx.wireFormat.commands.listThreads.maxLimit;
  const limit = optInt(args, 'limit', 1, max) ?? Math.min(defaultLimit, max);
  const raw = optString(args, ctx.wireFormat.commands.listThreads.cursorArg);
  const cursor = raw ? decodeCursor(raw) : null;
  if (raw && !cursor) throw new ArgError('invalid cursor');
  return { limit, cursor };
}

/** Applies `fn` to each known id; unknown ids are reported, not errors. */
function eachMessage(
  ctx: CommandContext,
  ids: string[],
  fn: (m: StoredMessage) => void,
): { done: string[]; notFound: string[] } {
  const done: string[] = [];
  const notFound: string[] = [];
  for (const id of ids) {
    const msg = ctx.box.messages.get(id);
    if (!msg) notFound.push(id);
    else {
      fn(msg);
      done.push(id);
    }
  }
  return { done, notFound };
}

const listFolders: CommandFn = (_args, ctx) => ({
  [ctx.wireFormat.folderListField]: ctx.box.listFolders(),
  [ctx.wireFormat.labelListField]: ctx.box.labels(ctx.wireFormat.emptyLabelsListed),
});

/** The folder to list, or (A22) every message carrying a label: exactly one of the two. */
function listedIndex(args: Args, ctx: CommandContext): FolderIndex {
  const label = optString(args, ctx.wireFormat.commands.listThreads.labelArg);
  if (label === undefined) return ctx.box.folder(folderArg(args, ctx, true) as string);
  if (args.folder !== undefined)
    throw new ArgError(`use either folder or ${ctx.wireFormat.commands.listThreads.labelArg}`);
  return ctx.box.labelIndex(label);
}

/**
 * A11: threads newest activity first; `is_read: false` keeps threads with an unread message here;
 * A22 label listing.
 */
const listThreads: CommandFn = (args, ctx) => {
  const index = listedIndex(args, ctx);
  const isRead = optBool(args, 'is_read');
  const { limit, cursor } = pageArgs(args, ctx);
  const sorted = index.sorted();
  const threads: Array<Record<string, unknown>> = [];
  let next: string | null = null;
  for (let i = cursor ? index.startAfter(cursor) : 0; i < sorted.length; i++) {
    const { threadId, messages } = sorted[i];
    if (isRead !== undefined && messages.some((m) => !m.isRead) === isRead) continue;
    const last = messages[messages.length - 1];
    if (threads.length === limit) {
      next = encodeCursor(keyOf(sorted[i - 1].messages[sorted[i - 1].messages.length - 1]));
      break;
    }
    threads.push({
      thread_id: threadId,
      last_message_uid: last.uid,
      subject: last.envelope.subject,
      // the whole conversation, all folders; message_uids covers only this folder
      message_count: ctx.box.threadSize(threadId),
      last_received_at: new Date(last.receivedAt).toISOString(),
      [ctx.wireFormat.threadMessageUidsField]: messages.map((m) => m.uid),
    });
  }
  return { threads, [ctx.wireFormat.commands.listThreads.nextCursorField]: next };
};

const getMessages: CommandFn = (args, ctx) => {
  const ids = idsArg(args);
  const include = (optStrings(args, 'include') ?? ['body', 'attachments']) as IncludePart[];
  const bad = include.find((p) => !includeParts.includes(p));
  if (bad) throw new ArgError(`unknown include part: ${bad}`);
  const messages: VendorMessage[] = [];
  const { notFound } = eachMessage(ctx, ids, (m) => messages.push(toVendorMessage(m, include)));
  return { messages, not_found: notFound };
};

/** A4. */
const search: CommandFn = (args, ctx) => {
  const query = reqString(args, 'query');
  const folder = folderArg(args, ctx, false);
  const { limit, cursor } = pageArgs(args, ctx);
  const hits = ctx.box.search(query, folder, limit, cursor);
  const page = hits.slice(0, limit);
  const next = hits.length > limit ? encodeCursor(keyOf(page[page.length - 1])) : null;
  return {
    [ctx.wireFormat.resultFields.searchUids]: page.map((m) => m.uid),
    [ctx.wireFormat.commands.listThreads.nextCursorField]: next,
  };
};

/** A5. */
const flag: CommandFn = (args, ctx) => {
  const ids = idsArg(args);
  const change = {
    isRead: optBool(args, 'is_read'),
    isStarred: optBool(args, 'is_starred'),
    isImportant: optBool(args, 'is_important'),
  };
  if (Object.values(change).every((v) => v === undefined))
    throw new ArgError('one of is_read, is_starred, is_important is required');
  const { done, notFound } = eachMessage(ctx, ids, (m) => {
    if (change.isRead !== undefined) m.isRead = change.isRead;
    if (change.isStarred !== undefined) m.isStarred = change.isStarred;
    if (change.isImportant !== undefined) m.isImportant = change.isImportant;
  });
  return { [ctx.wireFormat.resultFields.updated]: done, [ctx.wireFormat.resultFields.notFound]: notFound };
};

/** A6. */
const label: CommandFn = (args, ctx) => {
  const ids = idsArg(args);
  const add = optStrings(args, 'add') ?? [];
  const remove = optStrings(args, 'remove') ?? [];
  if (add.length + remove.length === 0) throw new ArgError('add or remove is required');
  ctx.box.noteLabels(add);
  const { done, notFound } = eachMessage(ctx, ids, (m) => {
    m.labels = [...new Set([...m.labels.filter((l) => !remove.includes(l)), ...add])];
  });
  return { [ctx.wireFormat.resultFields.updated]: done, [ctx.wireFormat.resultFields.notFound]: notFound };
};

/** A7: after a move the message has exactly that one folder. */
const move: CommandFn = (args, ctx) => {
  const ids = idsArg(args);
  const folder = folderArg(args, ctx, true) as string;
  const { done, notFound } = eachMessage(ctx, ids, (m) => ctx.box.move(m, folder));
  return { [ctx.wireFormat.resultFields.moved]: done, [ctx.wireFormat.resultFields.notFound]: notFound };
};

function sendFromMailbox(
  ctx: CommandContext,
  to: Recipient[],
  rest: {
    cc?: Recipient[];
    bcc?: Recipient[];
    subject: string;
    html?: string;
    text?: string;
    inReplyTo?: string;
    references?: string[];
    files?: IncomingFile[];
    messageId?: string;
    replyTo?: string;
  },
) {
  if (rest.html === undefined && rest.text === undefined) throw new ArgError('html or text is required');
  const { sent } = ctx.store.deliver({
    fromName: displayName(ctx.box.address),
    fromEmail: ctx.box.address,
    to,
    cc: rest.cc,
    bcc: rest.bcc,
    subject: rest.subject,
    ...bodyPair(rest.html, rest.text),
    inReplyTo: rest.inReplyTo ?? null,
    references: rest.references,
    files: rest.files,
    messageId: rest.messageId,
    replyTo: rest.replyTo,
  });
  return { message_uid: (sent as StoredMessage).uid };
}

/** A8. */
const send: CommandFn = (args, ctx) => {
  const to = optRecipients(args, 'to');
  if (!to || to.length === 0) throw new ArgError('to is required');
  const subject = optString(args, 'subject');
  if (subject === undefined) throw new ArgError('subject is required');
  return sendFromMailbox(ctx, to, {
    cc: optRecipients(args, 'cc'),
    bcc: optRecipients(args, 'bcc'),
    subject,
    html: optString(args, 'html'),
    text: optString(args, 'text'),
    inReplyTo: optString(args, 'in_reply_to'),
    references: optStrings(args, 'references'),
    // A27
    files: filesField(args.attachments, 'attachments'),
    messageId: optString(args, 'message_id'),
    replyTo: optString(args, 'reply_to'),
  });
};

/** A9: answers the original's sender (or, for one's own message, its first recipient). */
const reply: CommandFn = (args, ctx) => {
  const original = ctx.box.messages.get(reqString(args, 'message_uid'));
  if (!original) throw new ArgError('message_uid does not exist in this mailbox');
  const e = original.envelope;
  const own = e.fromEmail.toLowerCase() === ctx.box.address;
  const to = own ? e.to.slice(0, 1) : [{ email: e.fromEmail, name: e.fromName }];
  return sendFromMailbox(ctx, to, {
    subject: /^re:/i.test(e.subject) ? e.subject : `Re: ${e.subject}`,
    html: optString(args, 'html'),
    text: optString(args, 'text'),
    inReplyTo: original.messageId,
    references: [...e.references, original.messageId],
  });
};

/** Command name (as in the wire format) -> implementation. */
export function commandTable(a: WireFormat): Map<string, CommandFn> {
  const c = a.commands;
  return new Map<string, CommandFn>([
    [c.listFolders.name, listFolders],
    [c.listThreads.name, listThreads],
    [c.getMessages.name, getMessages],
    [c.search.name, search],
    [c.flag.name, flag],
    [c.label.name, label],
    [c.move.name, move],
    [c.send.name, send],
    [c.reply.name, reply],
  ]);
}
