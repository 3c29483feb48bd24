import { Readable } from 'node:stream';
import type { Logger } from '../log';
import type { Assumptions } from './assumptions';
import type { BulkResult, FlagChange, MailboxApi, RawContent } from './api';
import { VendorError } from './errors';
import type { Http } from './http';
import type { RateLimiter } from './rate-limiter';
import type { TokenManager } from './token-manager';
import type { Command, CommandResponse, CommandResult, VendorFolder, VendorMessage, VendorThread } from './types';

/** Vendor limits (spec section 8). */
export const maxCommandsPerRequest = 20;
export const maxIdsPerGetMessages = 50;

const maxRateLimitRetries = 5;
const maxTransientRetries = 3;

function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The command endpoint for one mailbox. Requests go through the mailbox's RateLimiter; an
 * expired access token is refreshed once and the request repeated; 429 waits Retry-After.
 * Reads (list_*, get_messages, search) also retry transient failures with backoff. Writes
 * are repeated only after answers that prove the vendor did nothing (429, TOKEN_EXPIRED,
 * AUTH_UNAVAILABLE): a write that may have been applied is never sent twice.
 */
export class MailboxClient implements MailboxApi {
  constructor(
    readonly mailbox: string,
    private readonly http: Http,
    private readonly readUrl: string,
    private readonly assumptions: Assumptions,
    private readonly tokens: TokenManager,
    private readonly limiter: RateLimiter,
    private readonly logger: Logger,
  ) {}

  private get readCommands(): Set<string> {
    const c = this.assumptions.commands;
    return new Set([c.listFolders.name, c.listThreads.name, c.getMessages.name, c.search.name]);
  }

  /** One authenticated call with the retry policy above. */
  private async authed<T>(idempotent: boolean, call: (token: string) => Promise<T>): Promise<T> {
    let token = this.tokens.current();
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.limiter.run(() => call(token));
      } catch (err) {
        if (!(err instanceof VendorError) && !(idempotent && (err as { transient?: boolean }).transient)) throw err;
        if (err instanceof VendorError && err.code === 'TOKEN_EXPIRED' && !refreshed) {
          token = await this.tokens.refresh(token);
          refreshed = true;
          continue;
        }
        if (err instanceof VendorError && err.kind === 'rate' && attempt < maxRateLimitRetries) {
          const seconds = Number(err.details.retryAfterSeconds) || 1;
          this.logger.warn({ mailbox: this.mailbox, seconds }, 'vendor rate limit hit; waiting Retry-After');
          this.limiter.pause(seconds * 1000);
          continue;
        }
        const safeToRepeat = idempotent || (err instanceof VendorError && err.code === 'AUTH_UNAVAILABLE');
        if ((err as { transient?: boolean }).transient && safeToRepeat && attempt < maxTransientRetries) {
          await sleep(200 * 2 ** attempt);
          continue;
        }
        throw err;
      }
    }
  }

  private async request(commands: Command[]): Promise<CommandResult[]> {
    const idempotent = commands.every((c) => this.readCommands.has(c.command));
    const response = await this.authed(idempotent, async (token) => {
      const res = await this.http.json<CommandResponse>('POST', `${this.readUrl}/v1`, { authorization: `Bearer ${token}` }, { commands });
      return res.body;
    });
    const results = Array.isArray(response.results) ? response.results : [];
    if (results.length !== commands.length) {
      throw new VendorError('INTERNAL', `vendor answered ${results.length} results for ${commands.length} commands`, 200, {}, 'internal');
    }
    // results are matched by their id (the command's position), not by arrival order
    return commands.map((_, i) => results.find((r) => String(r.id) === String(i)) ?? results[i]);
  }

  run(commands: Command[]): Promise<CommandResult[]> {
    return Promise.all(chunk(commands, maxCommandsPerRequest).map((c) => this.request(c))).then((parts) => parts.flat());
  }

  private check<T>(result: CommandResult): T {
    if (result.type === 'SUCCESS') return (result.data ?? {}) as T;
    const code = result.code ?? 'INTERNAL';
    const unsupported = this.assumptions.unsupportedCommandCodes.includes(code);
    throw new VendorError(code, `${result.command}: ${result.message ?? 'command failed'}`, 200, { command: result.command }, unsupported ? 'unsupported' : undefined);
  }

  private async one<T>(command: string, args: Record<string, unknown>): Promise<T> {
    const [result] = await this.run([{ command, args }]);
    return this.check<T>(result);
  }

  async listFolders(): Promise<VendorFolder[]> {
    const data = await this.one<Record<string, unknown>>(this.assumptions.commands.listFolders.name, {});
    const folders = data[this.assumptions.folderListField];
    return Array.isArray(folders) ? (folders as VendorFolder[]) : [];
  }

  async listThreads(args: { folder: string; isRead?: boolean; limit?: number; cursor?: string | null }): Promise<{ threads: VendorThread[]; nextCursor: string | null }> {
    const spec = this.assumptions.commands.listThreads;
    const data = await this.one<Record<string, unknown>>(spec.name, {
      folder: args.folder,
      limit: Math.min(args.limit ?? spec.maxLimit, spec.maxLimit),
      ...(args.isRead === undefined ? {} : { is_read: args.isRead }),
      ...(args.cursor ? { [spec.cursorArg]: args.cursor } : {}),
    });
    const next = data[spec.nextCursorField];
    return { threads: (data.threads as VendorThread[]) ?? [], nextCursor: typeof next === 'string' && next ? next : null };
  }

  async listAllThreads(folder: string): Promise<VendorThread[]> {
    const all: VendorThread[] = [];
    let cursor: string | null = null;
    do {
      const page = await this.listThreads({ folder, cursor });
      all.push(...page.threads);
      cursor = page.nextCursor;
    } while (cursor);
    return all;
  }

  async getMessages(ids: string[], include?: string[]): Promise<{ messages: VendorMessage[]; notFound: string[] }> {
    const unique = [...new Set(ids)];
    const name = this.assumptions.commands.getMessages.name;
    const commands = chunk(unique, maxIdsPerGetMessages).map((group) => ({ command: name, args: { ids: group, ...(include ? { include } : {}) } }));
    const results = await this.run(commands);
    const byId = new Map<string, VendorMessage>();
    const notFound: string[] = [];
    for (const r of results) {
      const data = this.check<{ messages?: VendorMessage[]; not_found?: string[] }>(r);
      for (const m of data.messages ?? []) byId.set(m.message_uid, m);
      notFound.push(...(data.not_found ?? []));
    }
    return { messages: unique.filter((id) => byId.has(id)).map((id) => byId.get(id)!), notFound };
  }

  async search(args: { query: string; folder?: string }): Promise<string[]> {
    const spec = this.assumptions.commands.search;
    const cursorArg = this.assumptions.commands.listThreads.cursorArg;
    const nextField = this.assumptions.commands.listThreads.nextCursorField;
    const uids: string[] = [];
    let cursor: string | null = null;
    do {
      const data: Record<string, unknown> = await this.one(spec.name, { query: args.query, ...(args.folder ? { folder: args.folder } : {}), ...(cursor ? { [cursorArg]: cursor } : {}) });
      uids.push(...((data.message_uids as string[]) ?? []));
      const next = data[nextField];
      cursor = typeof next === 'string' && next ? next : null;
    } while (cursor);
    return uids;
  }

  /** A write over many ids: groups of 50, every group's outcome collected. */
  private async bulk(command: string, ids: string[], args: Record<string, unknown>, doneField: string): Promise<BulkResult> {
    const results = await this.run(chunk([...new Set(ids)], maxIdsPerGetMessages).map((group) => ({ command, args: { ids: group, ...args } })));
    const out: BulkResult = { done: [], notFound: [] };
    for (const r of results) {
      const data = this.check<Record<string, unknown>>(r);
      out.done.push(...((data[doneField] as string[]) ?? []));
      out.notFound.push(...((data.not_found as string[]) ?? []));
    }
    return out;
  }

  setFlags(ids: string[], change: FlagChange): Promise<BulkResult> {
    return this.bulk(this.assumptions.commands.flag.name, ids, { ...change }, 'updated');
  }

  label(ids: string[], change: { add?: string[]; remove?: string[] }): Promise<BulkResult> {
    return this.bulk(this.assumptions.commands.label.name, ids, { ...change }, 'updated');
  }

  move(ids: string[], folder: string): Promise<BulkResult> {
    return this.bulk(this.assumptions.commands.move.name, ids, { folder }, 'moved');
  }

  async raw(messageUid: string, attachmentId: string): Promise<RawContent> {
    const query = new URLSearchParams({ message_id: messageUid, attachment_id: attachmentId });
    const res = await this.authed(true, (token) => this.http.raw('GET', `${this.readUrl}/v1/raw?${query}`, { authorization: `Bearer ${token}` }));
    const type = res.headers['x-original-content-type'];
    return { stream: Readable.from([res.body]), contentType: typeof type === 'string' ? type : null, length: res.body.length };
  }

  async verify(): Promise<void> {
    await this.listFolders();
  }
}
