import { Readable } from 'node:stream';
import { redactSecrets, type Logger } from '../log';
import type { Assumptions } from './assumptions';
import type { BulkResult, VendorFlagChange, FolderList, ListScope, MailboxApi, MailboxSend, RawContent } from './api';
import { AuthorizedCalls } from './authorized-calls';
import { bulkWrite } from './bulk-write';
import { chunk, CommandBatcher, maxCommandsPerRequest, maxIdsPerGetMessages } from './command-batching';
import { WriteBatcher } from './write-batcher';
import { VendorError } from './errors';
import type { Http } from './http';
import { ignoreVendorTraffic, type VendorObserver } from './observer';
import type { Lane, RateLimiter } from './rate-limiter';
import { RequestGate } from './request-gate';
import { backoff, maxTransientRetries, sleep, transientResult } from './retry-policy';
import { TokenManager } from './token-manager';
import type { Command, CommandResponse, CommandResult, VendorFolder, VendorMessage, VendorThread } from './types';
import type { TokenPair, TokenVault } from '../store';
import { systemClock, type Clock } from '../util/clock';

/** The vendor's token refresh route; `answered` marks the answer's start for the gate. */
export type RefreshCall = (refreshToken: string, answered: () => void) => Promise<TokenPair>;

/**
 * Write requests queued in the gate or on the wire at once; writes issued meanwhile share the
 * next request (write-batcher.ts). Leaves most of the 15 places in flight to reads.
 */
const maxOutstandingWrites = 4;

/**
 * The command endpoint for one mailbox: the vendor's commands as methods. Requests go through
 * the mailbox's gate in the caller's lane (request-gate.ts) with its access token
 * (authorized-calls.ts), repeated as the retry policy says (retry-policy.ts); a write that may
 * have been applied is never sent twice, it throws OutcomeUnknownError. Commands travel
 * together in requests of at most 20 (command-batching.ts, write-batcher.ts).
 */
export class MailboxClient implements MailboxApi {
  private readonly readCommands: Set<string>;
  private readonly calls: AuthorizedCalls;
  private readonly batches: CommandBatcher;
  private readonly writes: WriteBatcher;

  constructor(
    readonly mailbox: string,
    private readonly http: Http,
    private readonly readUrl: string,
    private readonly assumptions: Assumptions,
    secrets: TokenVault,
    refreshCall: RefreshCall,
    limiter: RateLimiter,
    private readonly logger: Logger,
    private readonly observer: VendorObserver = ignoreVendorTraffic,
    /** Times the retries' backoff and the dead-token retries (tests move it). */
    private readonly clock: Clock = systemClock,
    private readonly writeFence: () => void = () => undefined,
  ) {
    const c = assumptions.commands;
    this.readCommands = new Set([c.listFolders.name, c.listThreads.name, c.getMessages.name, c.search.name]);
    const gate = new RequestGate(mailbox, limiter, logger, observer, clock);
    this.writes = new WriteBatcher(
      (take, lane) => this.requestWhenGranted(take, lane, false),
      maxCommandsPerRequest,
      maxOutstandingWrites,
      { clock, ...limiter.window, counted: () => limiter.counted() },
    );
    // the refresh is a request like any other (the vendor may count it), in the first lane.
    // Callers release their slot before they wait for it, so 15 requests rejected at once as
    // expired cannot hold every place the refresh needs.
    const tokens = new TokenManager(
      mailbox,
      secrets,
      (refreshToken) => gate.call('refresh', false, (answered) => refreshCall(refreshToken, answered)),
      logger,
      clock,
    );
    this.calls = new AuthorizedCalls(mailbox, gate, tokens, observer);
    this.batches = new CommandBatcher(
      (commands, lane) => this.request(commands, lane),
      (commands) => this.isWrite(commands),
    );
  }

  /** One request of at most 20 commands; results put back in command order by their id. */
  private request(commands: Command[], lane: Lane): Promise<CommandResult[]> {
    const idempotent = commands.every((c) => this.readCommands.has(c.command));
    return this.requestWhenGranted(() => commands, lane, idempotent);
  }

  /** The same, with the commands taken when the gate grants the request (write-batcher.ts). */
  private async requestWhenGranted(take: () => Command[], lane: Lane, idempotent: boolean): Promise<CommandResult[]> {
    let granted: Command[] | undefined;
    const { response, commands } = await this.calls.call(lane, idempotent, async (token, answered) => {
      // taken at the first grant; a repeat (after a refresh or a 429) sends the same commands
      granted ??= take();
      // a write goes out only while the mailbox is still this node's, however long it waited
      // for its turn; a throw here sends nothing, so the write definitely did not happen
      if (!idempotent) this.writeFence();
      const res = await this.http.json<CommandResponse>(
        'POST',
        `${this.readUrl}/v1`,
        { authorization: `Bearer ${token}` },
        { commands: granted },
        answered,
      );
      return { response: res.body, commands: granted };
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

  private isWrite(commands: Command[]): boolean {
    return !commands.every((c) => this.readCommands.has(c.command));
  }

  /** Requests run concurrently through the limiter; failed reads are repeated on their own. */
  async run(commands: Command[], lane: Lane = this.isWrite(commands) ? 'write' : 'sync'): Promise<CommandResult[]> {
    const results = await this.batches.run(commands, lane);
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
      await sleep(this.clock, backoff(attempt));
      const repeated = await this.batches.run(
        again.map((i) => commands[i]),
        lane,
      );
      for (const [k, index] of again.entries()) results[index] = repeated[k];
    }
    return results;
  }

  /** The failure a command result carries, as a VendorError. */
  private failure(result: CommandResult): VendorError {
    const code = result.code ?? 'INTERNAL';
    const unsupported = this.assumptions.unsupportedCommandCodes.includes(code);
    return new VendorError(
      code,
      `${result.command}: ${redactSecrets(result.message ?? 'command failed')}`,
      200,
      { command: result.command },
      unsupported ? 'unsupported' : undefined,
    );
  }

  private check<T>(result: CommandResult): T {
    if (result.type === 'SUCCESS') return (result.data ?? {}) as T;
    throw this.failure(result);
  }

  private async one<T>(command: string, args: Record<string, unknown>, lane: Lane): Promise<T> {
    const [result] = await this.run([{ command, args }], lane);
    return this.check<T>(result);
  }

  async listFolders(lane: Lane = 'poll'): Promise<VendorFolder[]> {
    return (await this.folderList(lane)).folders;
  }

  async folderList(lane: Lane = 'poll'): Promise<FolderList> {
    const data = await this.one<Record<string, unknown>>(this.assumptions.commands.listFolders.name, {}, lane);
    const folders = data[this.assumptions.folderListField];
    const labels = data[this.assumptions.labelListField];
    return {
      folders: Array.isArray(folders) ? (folders as VendorFolder[]) : [],
      labels: Array.isArray(labels) ? labels.filter((l): l is string => typeof l === 'string' && l.length > 0) : null,
    };
  }

  async listThreads(
    args: ListScope & { isRead?: boolean; limit?: number; cursor?: string | null },
    lane: Lane = 'sync',
  ): Promise<{ threads: VendorThread[]; nextCursor: string | null }> {
    const spec = this.assumptions.commands.listThreads;
    const data = await this.one<Record<string, unknown>>(
      spec.name,
      {
        ...('label' in args ? { [spec.labelArg]: args.label } : { folder: args.folder }),
        limit: Math.min(args.limit ?? spec.maxLimit, spec.maxLimit),
        ...(args.isRead === undefined ? {} : { is_read: args.isRead }),
        ...(args.cursor ? { [spec.cursorArg]: args.cursor } : {}),
      },
      lane,
    );
    const next = data[spec.nextCursorField];
    return {
      threads: (data.threads as VendorThread[]) ?? [],
      nextCursor: typeof next === 'string' && next ? next : null,
    };
  }

  async getMessages(
    ids: string[],
    include?: string[],
    lane: Lane = 'sync',
  ): Promise<{ messages: VendorMessage[]; notFound: string[] }> {
    const unique = [...new Set(ids)];
    const name = this.assumptions.commands.getMessages.name;
    const commands = chunk(unique, maxIdsPerGetMessages).map((group) => ({
      command: name,
      args: { ids: group, ...(include ? { include } : {}) },
    }));
    const results = await this.run(commands, lane);
    const byId = new Map<string, VendorMessage>();
    const notFound: string[] = [];
    for (const r of results) {
      const data = this.check<{ messages?: VendorMessage[]; not_found?: string[] }>(r);
      for (const m of data.messages ?? []) byId.set(m.message_uid, m);
      notFound.push(...(data.not_found ?? []));
    }
    return { messages: unique.filter((id) => byId.has(id)).map((id) => byId.get(id)!), notFound };
  }

  readBack(ids: string[], lane: Lane = 'write'): Promise<{ messages: VendorMessage[]; notFound: string[] }> {
    return this.getMessages(ids, this.assumptions.metadataInclude, lane);
  }

  async search(args: { query: string; folder?: string }, lane: Lane = 'content'): Promise<string[]> {
    const spec = this.assumptions.commands.search;
    const cursorArg = this.assumptions.commands.listThreads.cursorArg;
    const nextField = this.assumptions.commands.listThreads.nextCursorField;
    const uids: string[] = [];
    let cursor: string | null = null;
    do {
      const data: Record<string, unknown> = await this.one(
        spec.name,
        {
          query: args.query,
          ...(args.folder ? { folder: args.folder } : {}),
          ...(cursor ? { [cursorArg]: cursor } : {}),
        },
        lane,
      );
      uids.push(...((data[this.assumptions.resultFields.searchUids] as string[]) ?? []));
      const next = data[nextField];
      cursor = typeof next === 'string' && next ? next : null;
    } while (cursor);
    return uids;
  }

  private bulk(command: string, ids: string[], args: Record<string, unknown>, doneField: string, lane: Lane) {
    const notFoundField = this.assumptions.resultFields.notFound;
    return bulkWrite(this.writes, (r) => this.failure(r), { command, ids, args, doneField, notFoundField, lane });
  }

  setFlags(ids: string[], change: VendorFlagChange, lane: Lane = 'write'): Promise<BulkResult> {
    const c = this.assumptions;
    return this.bulk(c.commands.flag.name, ids, { ...change }, c.resultFields.updated, lane);
  }

  label(ids: string[], change: { add?: string[]; remove?: string[] }, lane: Lane = 'write'): Promise<BulkResult> {
    const c = this.assumptions;
    return this.bulk(c.commands.label.name, ids, { ...change }, c.resultFields.updated, lane);
  }

  move(ids: string[], folder: string, lane: Lane = 'write'): Promise<BulkResult> {
    const c = this.assumptions;
    return this.bulk(c.commands.move.name, ids, { folder }, c.resultFields.moved, lane);
  }

  async sendMessage(m: MailboxSend): Promise<{ messageUid: string }> {
    const data = await this.one<Record<string, unknown>>(
      this.assumptions.commands.send.name,
      {
        message_id: m.messageId,
        to: m.to,
        cc: m.cc,
        bcc: m.bcc,
        subject: m.subject,
        ...(m.html === undefined ? {} : { html: m.html }),
        ...(m.text === undefined ? {} : { text: m.text }),
        ...(m.inReplyTo ? { in_reply_to: m.inReplyTo } : {}),
        ...(m.references?.length ? { references: m.references } : {}),
        ...(m.replyTo ? { reply_to: m.replyTo } : {}),
        ...(m.attachments?.length ? { attachments: m.attachments } : {}),
      },
      'write',
    );
    return { messageUid: String(data.message_uid ?? '') };
  }

  private rawUrl(messageUid: string, attachmentId: string): string {
    return `${this.readUrl}/v1/raw?${new URLSearchParams({ message_id: messageUid, attachment_id: attachmentId })}`;
  }

  /** GET /v1/raw read whole within the request's retries: a connection lost mid-body is repeated too. */
  private download(messageUid: string, attachmentId: string, upTo: number, lane: Lane) {
    return this.calls.call(lane, true, (token, answered) =>
      this.http.bytes(this.rawUrl(messageUid, attachmentId), { authorization: `Bearer ${token}` }, upTo, answered),
    );
  }

  async raw(messageUid: string, attachmentId: string, lane: Lane = 'content'): Promise<RawContent> {
    const { body, headers } = await this.download(messageUid, attachmentId, Number.POSITIVE_INFINITY, lane);
    const bytes = body ?? Buffer.alloc(0);
    const type = headers['x-original-content-type'];
    return {
      stream: Readable.from([bytes]),
      contentType: typeof type === 'string' ? type : null,
      length: bytes.length,
    };
  }

  async rawBytes(messageUid: string, attachmentId: string, upTo: number, lane: Lane): Promise<Buffer | null> {
    return (await this.download(messageUid, attachmentId, upTo, lane)).body;
  }

  async verify(): Promise<void> {
    await this.listFolders('content');
  }
}
