import { finished, type Readable } from 'node:stream';
import { redactSecrets, type Logger } from '../log';
import type { Assumptions } from './assumptions';
import type { BulkResult, FlagChange, FolderList, ListScope, MailboxApi, RawContent } from './api';
import { errorKinds, TransportError, VendorError } from './errors';
import type { Http } from './http';
import { ignoreVendorTraffic, type VendorObserver } from './observer';
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
/** 200, 400, 800 ms plus jitter, so that callers failing together do not retry together. */
const backoff = (attempt: number) => 200 * 2 ** attempt + Math.random() * 100;

/** A failed command result that may succeed when repeated (INTERNAL and the like). */
function transientResult(r: CommandResult): boolean {
  if (r.type === 'SUCCESS' || !r.code) return false;
  const kind = errorKinds[r.code];
  return kind === 'internal' || kind === 'unavailable';
}

/**
 * The command endpoint for one mailbox. Requests go through the mailbox's RateLimiter; an
 * expired access token is refreshed once and the request repeated; 429 pauses the mailbox
 * for Retry-After and repeats. Reads (list_*, get_messages, search) also repeat transient
 * failures (5xx, resets, command-level INTERNAL) with backoff. Writes are repeated only after
 * answers proving the vendor did nothing (429, TOKEN_EXPIRED, AUTH_UNAVAILABLE, no
 * connection): a write that may have been applied is never sent twice.
 */
export class MailboxClient implements MailboxApi {
  private readonly readCommands: Set<string>;
  private readonly sharedReads: Array<{
    commands: Command[];
    resolve(results: CommandResult[]): void;
    reject(err: unknown): void;
  }> = [];

  constructor(
    readonly mailbox: string,
    private readonly http: Http,
    private readonly readUrl: string,
    private readonly assumptions: Assumptions,
    private readonly tokens: TokenManager,
    private readonly limiter: RateLimiter,
    private readonly logger: Logger,
    private readonly observer: VendorObserver = ignoreVendorTraffic,
  ) {
    const c = assumptions.commands;
    this.readCommands = new Set([c.listFolders.name, c.listThreads.name, c.getMessages.name, c.search.name]);
  }

  /**
   * One authenticated call with the retry policy above. The limiter slot is held until the
   * call settles or, when `bodyOf` names a streamed body, until that stream is done.
   */
  private async authed<T>(
    idempotent: boolean,
    call: (token: string, answered: () => void) => Promise<T>,
    bodyOf?: (result: T) => Readable,
  ): Promise<T> {
    try {
      const result = await this.retrying(idempotent, call, bodyOf);
      this.observer.mailboxResult(this.mailbox, null);
      return result;
    } catch (err) {
      // refusals of one request's arguments still prove the vendor and the token work
      const answered = err instanceof VendorError && !err.transient && err.kind !== 'auth';
      this.observer.mailboxResult(this.mailbox, answered ? null : (err as Error));
      throw err;
    }
  }

  private async retrying<T>(
    idempotent: boolean,
    call: (token: string, answered: () => void) => Promise<T>,
    bodyOf?: (result: T) => Readable,
  ): Promise<T> {
    let token = this.tokens.current();
    let refreshed = false;
    let rateRetries = 0;
    let transientRetries = 0;
    for (;;) {
      const slot = await this.limiter.acquire();
      let result: T;
      try {
        result = await call(token, slot.answered);
      } catch (err) {
        slot.release();
        if (err instanceof VendorError && err.code === 'TOKEN_EXPIRED' && !refreshed) {
          this.observer.retry('token_expired');
          token = await this.tokens.refresh(token);
          refreshed = true;
          continue;
        }
        const newer =
          err instanceof VendorError && err.code === 'INVALID_TOKEN' ? this.tokens.replacement(token) : null;
        if (newer) {
          token = newer;
          continue;
        }
        if (err instanceof VendorError && err.kind === 'rate' && rateRetries++ < maxRateLimitRetries) {
          const seconds = Number(err.details.retryAfterSeconds) || 1;
          this.logger.warn(
            { mailbox: this.mailbox, seconds },
            'vendor rate limit hit; pausing the mailbox for Retry-After',
          );
          this.limiter.pause(seconds * 1000);
          this.observer.retry('rate_limited');
          continue;
        }
        const neverApplied =
          (err instanceof VendorError && err.code === 'AUTH_UNAVAILABLE') ||
          (err instanceof TransportError && !err.maybeSent);
        const transient = (err instanceof VendorError || err instanceof TransportError) && err.transient;
        if (transient && (idempotent || neverApplied) && transientRetries < maxTransientRetries) {
          this.logger.debug(
            { mailbox: this.mailbox, attempt: transientRetries + 1, error: (err as Error).message },
            'transient vendor failure; retrying',
          );
          this.observer.retry('transient');
          await sleep(backoff(transientRetries++));
          continue;
        }
        throw err;
      }
      const body = bodyOf?.(result);
      if (body) finished(body, () => slot.release());
      else slot.release();
      return result;
    }
  }

  /** One request of at most 20 commands; results put back in command order by their id. */
  private async request(commands: Command[]): Promise<CommandResult[]> {
    const idempotent = commands.every((c) => this.readCommands.has(c.command));
    const response = await this.authed(idempotent, async (token, answered) => {
      const res = await this.http.json<CommandResponse>(
        'POST',
        `${this.readUrl}/v1`,
        { authorization: `Bearer ${token}` },
        { commands },
        answered,
      );
      return res.body;
    });
    const results = Array.isArray(response.results) ? response.results : [];
    if (results.length !== commands.length) {
      throw new VendorError(
        'INTERNAL',
        `vendor answered ${results.length} results for ${commands.length} commands`,
        200,
        {},
        'internal',
      );
    }
    const byId = new Map(results.map((r) => [String(r.id), r]));
    return commands.map((_, i) => byId.get(String(i)) ?? results[i]);
  }

  /**
   * Reads issued in the same turn of the event loop share requests, 20 commands to a request:
   * a sync asks for the next list_threads page and for the messages of the page it just got
   * at the same moment, so both travel in one request instead of two. Writes go on their own.
   */
  private runOnce(commands: Command[]): Promise<CommandResult[]> {
    if (!commands.every((c) => this.readCommands.has(c.command))) return this.send(commands);
    return new Promise((resolve, reject) => {
      if (!this.sharedReads.length) setImmediate(() => this.sendSharedReads());
      this.sharedReads.push({ commands, resolve, reject });
    });
  }

  private sendSharedReads(): void {
    const callers = this.sharedReads.splice(0);
    const requests = chunk(
      callers.flatMap((c) => c.commands),
      maxCommandsPerRequest,
    ).map((c) => this.request(c));
    // each caller gets its own results, or the failure of a request that carried its commands
    void Promise.allSettled(requests).then((settled) => {
      let at = 0;
      for (const caller of callers) {
        const first = Math.floor(at / maxCommandsPerRequest);
        const mine = settled.slice(first, Math.floor((at + caller.commands.length - 1) / maxCommandsPerRequest) + 1);
        const failed = mine.find((r): r is PromiseRejectedResult => r.status === 'rejected');
        if (failed) caller.reject(failed.reason);
        else {
          const offset = at - first * maxCommandsPerRequest;
          caller.resolve(
            mine
              .flatMap((r) => (r as PromiseFulfilledResult<CommandResult[]>).value)
              .slice(offset, offset + caller.commands.length),
          );
        }
        at += caller.commands.length;
      }
    });
  }

  private async send(commands: Command[]): Promise<CommandResult[]> {
    const parts = await Promise.all(chunk(commands, maxCommandsPerRequest).map((c) => this.request(c)));
    return parts.flat();
  }

  /** Requests run concurrently through the limiter; failed reads are repeated on their own. */
  async run(commands: Command[]): Promise<CommandResult[]> {
    const results = await this.runOnce(commands);
    for (let attempt = 0; attempt < maxTransientRetries; attempt++) {
      const again = commands.flatMap((c, i) =>
        this.readCommands.has(c.command) && transientResult(results[i]) ? [i] : [],
      );
      if (again.length === 0) break;
      this.logger.debug(
        { mailbox: this.mailbox, commands: again.length, attempt: attempt + 1 },
        'transient command failures; repeating those reads',
      );
      this.observer.retry('transient');
      await sleep(backoff(attempt));
      const repeated = await this.runOnce(again.map((i) => commands[i]));
      for (const [k, index] of again.entries()) results[index] = repeated[k];
    }
    return results;
  }

  private check<T>(result: CommandResult): T {
    if (result.type === 'SUCCESS') return (result.data ?? {}) as T;
    const code = result.code ?? 'INTERNAL';
    const unsupported = this.assumptions.unsupportedCommandCodes.includes(code);
    throw new VendorError(
      code,
      `${result.command}: ${redactSecrets(result.message ?? 'command failed')}`,
      200,
      { command: result.command },
      unsupported ? 'unsupported' : undefined,
    );
  }

  private async one<T>(command: string, args: Record<string, unknown>): Promise<T> {
    const [result] = await this.run([{ command, args }]);
    return this.check<T>(result);
  }

  async listFolders(): Promise<VendorFolder[]> {
    return (await this.folderList()).folders;
  }

  async folderList(): Promise<FolderList> {
    const data = await this.one<Record<string, unknown>>(this.assumptions.commands.listFolders.name, {});
    const folders = data[this.assumptions.folderListField];
    const labels = data[this.assumptions.labelListField];
    return {
      folders: Array.isArray(folders) ? (folders as VendorFolder[]) : [],
      labels: Array.isArray(labels) ? labels.filter((l): l is string => typeof l === 'string' && l.length > 0) : null,
    };
  }

  async listThreads(
    args: ListScope & { isRead?: boolean; limit?: number; cursor?: string | null },
  ): Promise<{ threads: VendorThread[]; nextCursor: string | null }> {
    const spec = this.assumptions.commands.listThreads;
    const data = await this.one<Record<string, unknown>>(spec.name, {
      ...('label' in args ? { [spec.labelArg]: args.label } : { folder: args.folder }),
      limit: Math.min(args.limit ?? spec.maxLimit, spec.maxLimit),
      ...(args.isRead === undefined ? {} : { is_read: args.isRead }),
      ...(args.cursor ? { [spec.cursorArg]: args.cursor } : {}),
    });
    const next = data[spec.nextCursorField];
    return {
      threads: (data.threads as VendorThread[]) ?? [],
      nextCursor: typeof next === 'string' && next ? next : null,
    };
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
    const commands = chunk(unique, maxIdsPerGetMessages).map((group) => ({
      command: name,
      args: { ids: group, ...(include ? { include } : {}) },
    }));
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
      const data: Record<string, unknown> = await this.one(spec.name, {
        query: args.query,
        ...(args.folder ? { folder: args.folder } : {}),
        ...(cursor ? { [cursorArg]: cursor } : {}),
      });
      uids.push(...((data[this.assumptions.resultFields.searchUids] as string[]) ?? []));
      const next = data[nextField];
      cursor = typeof next === 'string' && next ? next : null;
    } while (cursor);
    return uids;
  }

  /** A write over many ids: groups of 50, every group's outcome collected. */
  private async bulk(
    command: string,
    ids: string[],
    args: Record<string, unknown>,
    doneField: string,
  ): Promise<BulkResult> {
    const results = await this.run(
      chunk([...new Set(ids)], maxIdsPerGetMessages).map((group) => ({ command, args: { ids: group, ...args } })),
    );
    const out: BulkResult = { done: [], notFound: [] };
    for (const r of results) {
      const data = this.check<Record<string, unknown>>(r);
      out.done.push(...((data[doneField] as string[]) ?? []));
      out.notFound.push(...((data[this.assumptions.resultFields.notFound] as string[]) ?? []));
    }
    return out;
  }

  setFlags(ids: string[], change: FlagChange): Promise<BulkResult> {
    return this.bulk(this.assumptions.commands.flag.name, ids, { ...change }, this.assumptions.resultFields.updated);
  }

  label(ids: string[], change: { add?: string[]; remove?: string[] }): Promise<BulkResult> {
    return this.bulk(this.assumptions.commands.label.name, ids, { ...change }, this.assumptions.resultFields.updated);
  }

  move(ids: string[], folder: string): Promise<BulkResult> {
    return this.bulk(this.assumptions.commands.move.name, ids, { folder }, this.assumptions.resultFields.moved);
  }

  async raw(messageUid: string, attachmentId: string): Promise<RawContent> {
    const query = new URLSearchParams({ message_id: messageUid, attachment_id: attachmentId });
    const res = await this.authed(
      true,
      (token, answered) =>
        this.http.stream(
          'GET',
          `${this.readUrl}/v1/raw?${query}`,
          { authorization: `Bearer ${token}` },
          undefined,
          answered,
        ),
      (r) => r.body,
    );
    const type = res.headers['x-original-content-type'];
    const length = Number(res.headers['content-length']);
    return {
      stream: res.body,
      contentType: typeof type === 'string' ? type : null,
      length: Number.isFinite(length) ? length : null,
    };
  }

  async verify(): Promise<void> {
    await this.listFolders();
  }
}
