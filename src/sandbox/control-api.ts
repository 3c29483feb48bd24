import type { Accounts } from './accounts';
import { ArgError, optBool, optInt, optString, optStrings, parseAddressList, reqString } from './args';
import { bodyPair } from './body-format';
import { isObject, readJson, sendJson, type FaultOptions, type Handler } from './http';
import type { OutboxEntry } from './mail-api';
import { includeParts, toVendorMessage, type IncludePart } from './message';
import type { Quarantine } from './quarantine';
import type { IncomingFile, MailboxState, SandboxStore } from './store';
import type { SandboxStats } from './traffic';

/** JSON control API for tests and the CLI in another process; no latency, faults or auth. */

export interface ControlDeps {
  store: SandboxStore;
  accounts: Accounts;
  quarantine: Quarantine;
  outbox: OutboxEntry[];
  domains: string[];
  info(): Record<string, unknown>;
  issueTokens(mailbox: string): { accessToken: string; refreshToken: string };
  revokeTokens(mailbox: string): void;
  advanceClock(ms: number): number;
  stats(mailbox?: string): SandboxStats;
  resetStats(): void;
  setFaults(f: FaultOptions): void;
  setLatency(ms: number): void;
}

class NotFound extends Error {}

type Args = Record<string, unknown>;

function mailboxArg(store: SandboxStore, args: Args): MailboxState {
  const box = store.mailbox(reqString(args, 'mailbox'));
  if (!box) throw new NotFound('unknown mailbox');
  return box;
}

function folderArg(box: MailboxState, name: string): string {
  const folder = box.folderName(name);
  if (!folder) throw new ArgError(`unknown folder: ${name}`);
  return folder;
}

function messageArg(box: MailboxState, args: Args) {
  const msg = box.messages.get(reqString(args, 'message_uid'));
  if (!msg) throw new NotFound('unknown message_uid');
  return msg;
}

function injectedFiles(v: unknown): IncomingFile[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new ArgError('attachments must be an array');
  return v.map((f) => {
    if (!isObject(f)) throw new ArgError('attachments entries must be objects');
    return {
      filename: reqString(f, 'filename'),
      contentType: optString(f, 'contentType') ?? optString(f, 'mime_type') ?? 'application/octet-stream',
      data: Buffer.from(optString(f, 'content') ?? '', 'base64'),
      contentId: optString(f, 'contentId') ?? null,
      inline: optBool(f, 'inline'),
    };
  });
}

export function controlApi(deps: ControlDeps): Handler {
  const { store } = deps;

  const posts: Record<string, (args: Args) => unknown> = {
    '/tokens': (args) => {
      const { accessToken, refreshToken } = deps.issueTokens(mailboxArg(store, args).address);
      return { access_token: accessToken, refresh_token: refreshToken };
    },
    '/revoke': (args) => {
      deps.revokeTokens(mailboxArg(store, args).address);
      return { ok: true };
    },
    '/inject': (args) => {
      const box = mailboxArg(store, args);
      const m = args.message;
      if (!isObject(m)) throw new ArgError('message is required');
      const [from] = parseAddressList(reqString(m, 'from'));
      const body = bodyPair(optString(m, 'html'), optString(m, 'text'));
      const msg = store.inject(
        box.address,
        {
          fromName: from.name ?? '',
          fromEmail: from.email,
          to: parseAddressList(optString(m, 'to') ?? box.address),
          cc: parseAddressList(optString(m, 'cc') ?? ''),
          subject: optString(m, 'subject') ?? '',
          ...body,
          files: injectedFiles(m.attachments),
          messageId: optString(m, 'message_id'),
          inReplyTo: optString(m, 'in_reply_to') ?? null,
          references: optStrings(m, 'references'),
        },
        folderArg(box, optString(m, 'folder') ?? 'INBOX'),
      );
      msg.isRead = optBool(m, 'is_read') ?? false;
      return { message_uid: msg.uid, message_id: msg.messageId, thread_id: msg.threadId };
    },
    '/flags': (args) => {
      const box = mailboxArg(store, args);
      const msg = messageArg(box, args);
      msg.isRead = optBool(args, 'is_read') ?? msg.isRead;
      msg.isStarred = optBool(args, 'is_starred') ?? msg.isStarred;
      msg.isImportant = optBool(args, 'is_important') ?? msg.isImportant;
      msg.labels = optStrings(args, 'labels') ?? msg.labels;
      if (args.snoozed_until !== undefined) {
        const until = args.snoozed_until === null ? null : Date.parse(String(args.snoozed_until));
        if (until !== null && Number.isNaN(until)) throw new ArgError('snoozed_until must be an ISO 8601 time or null');
        msg.snoozedUntil = until;
      }
      return { message: toVendorMessage(msg, []) };
    },
    '/move': (args) => {
      const box = mailboxArg(store, args);
      const msg = messageArg(box, args);
      box.move(msg, folderArg(box, reqString(args, 'folder')));
      return { message: toVendorMessage(msg, []) };
    },
    '/delete': (args) => {
      const box = mailboxArg(store, args);
      box.remove(messageArg(box, args).uid);
      return { ok: true };
    },
    '/clock/advance': (args) => ({
      now: new Date(deps.advanceClock(optInt(args, 'ms', 0, Number.MAX_SAFE_INTEGER) ?? 0)).toISOString(),
    }),
    '/stats/reset': () => {
      deps.resetStats();
      return { ok: true };
    },
    '/faults': (args) => {
      const rate = (key: string) => {
        const v = args[key];
        if (v === undefined) return undefined;
        if (typeof v !== 'number' || v < 0 || v > 1) throw new ArgError(`${key} must be a number from 0 to 1`);
        return v;
      };
      deps.setFaults({
        errorRate: rate('errorRate'),
        unavailableRate: rate('unavailableRate'),
        resetRate: rate('resetRate'),
        lostWriteAnswerRate: rate('lostWriteAnswerRate'),
        truncateRate: rate('truncateRate'),
        slowRate: rate('slowRate'),
        slowMs: optInt(args, 'slowMs', 0, 600_000),
        routes: optStrings(args, 'routes'),
      });
      return { ok: true };
    },
    '/latency': (args) => {
      deps.setLatency(optInt(args, 'ms', 0, 600_000) ?? 0);
      return { ok: true };
    },
    '/account-state': (args) => {
      const code = args.code === null ? null : reqString(args, 'code');
      try {
        deps.accounts.force(code, optInt(args, 'times', 1, 1_000_000) ?? null, optString(args, 'api_key'));
      } catch (err) {
        throw new ArgError((err as Error).message);
      }
      return { ok: true };
    },
    '/domains': (args) => {
      const domains = optStrings(args, 'domains');
      if (!domains || domains.length === 0) throw new ArgError('domains must be a non-empty array');
      deps.domains.splice(0, deps.domains.length, ...domains.map((d) => d.toLowerCase()));
      return { domains: deps.domains };
    },
  };

  const gets: Record<string, (q: URLSearchParams) => unknown> = {
    '/info': () => deps.info(),
    '/stats': (q) => deps.stats(q.get('mailbox') ?? undefined),
    '/outbox': () => ({ outbox: deps.outbox }),
    '/quarantine': () => ({ records: [...deps.quarantine.records.values()].map((r) => deps.quarantine.describe(r)) }),
    '/messages': (q) => {
      const box = mailboxArg(store, { mailbox: q.get('mailbox') ?? '' });
      const folderName = q.get('folder');
      const include = (q.get('include') ?? 'attachments').split(',').filter(Boolean) as IncludePart[];
      if (include.some((p) => !includeParts.includes(p))) throw new ArgError('unknown include part');
      return {
        messages: box.dump(folderName ? folderArg(box, folderName) : null).map((m) => toVendorMessage(m, include)),
      };
    },
  };

  return async (req, res, url) => {
    const path = url.pathname.replace(/\/+$/, '').replace(/^\/control(?=\/)/, '');
    try {
      if (req.method === 'GET' && gets[path]) return sendJson(res, 200, gets[path](url.searchParams));
      if (req.method === 'POST' && posts[path]) {
        const body = await readJson(req, 50 * 1024 * 1024);
        if (!body.ok) return sendJson(res, body.status, { error: body.message });
        if (!isObject(body.value)) return sendJson(res, 400, { error: 'body must be a JSON object' });
        return sendJson(res, 200, posts[path](body.value));
      }
      sendJson(res, 404, { error: `no route ${req.method} ${url.pathname}` });
    } catch (err) {
      if (err instanceof ArgError) return sendJson(res, 400, { error: err.message });
      if (err instanceof NotFound) return sendJson(res, 404, { error: err.message });
      throw err;
    }
  };
}
