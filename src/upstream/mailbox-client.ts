import { Readable } from 'node:stream';
import { redactSecrets, type Logger } from '../log';
import type { Assumptions } from './assumptions';
import type { BulkResult, VendorFlagChange, FolderList, ListScope, MailboxApi, MailboxSend, RawContent } from './api';
import { WriteBatcher } from './write-batcher';
import { OutcomeUnknownError } from '../domain/connector';
import { errorKinds, TransportError, VendorError } from './errors';
import type { Http } from './http';
import { ignoreVendorTraffic, type VendorObserver } from './observer';
import { highestLane, laneRank, type GateLane, type Lane, type RateLimiter } from './rate-limiter';
import { TokenManager } from './token-manager';
import type { Command, CommandResponse, CommandResult, VendorFolder, VendorMessage, VendorThread } from './types';
import type { TokenPair, TokenVault } from '../store';
import { systemClock, type Clock } from '../util/clock';

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

/** 200, 400, 800 ms plus jitter, so that callers failing together do not retry together. */
const backoff = (attempt: number) => 200 * 2 ** attempt + Math.random() * 100;

/** A failed command result that may succeed when repeated (INTERNAL and the like). */
function transientResult(r: CommandResult): boolean {
  if (r.type === 'SUCCESS' || !r.code) return false;
  const kind = errorKinds[r.code];
  return kind === 'internal' || kind === 'unavailable';
}

/**
 * A failed write request that may still have been applied: the request may have arrived and
 * the answer proves nothing either way (lost connection or timeout after sending, a 5xx other
 * than AUTH_UNAVAILABLE, an unreadable 2xx). Refusals (4xx, 503 AUTH_UNAVAILABLE, no
 * connection) prove nothing happened.
 */
function mayHaveApplied(err: unknown): boolean {
  if (err instanceof TransportError) return err.maybeSent;
  return err instanceof VendorError && err.kind === 'internal';
}

/** The vendor's token refresh route; `answered` marks the answer's start for the gate. */
export type RefreshCall = (refreshToken: string, answered: () => void) => Promise<TokenPair>;

/** Recovers from a failure by changing what the next attempt sends; true to try again. */
type Recovery = (err: unknown) => Promise<boolean>;

/**
 * The command endpoint for one mailbox. Requests go through the mailbox's RateLimiter in the
 * caller's lane; an expired access token is refreshed once (the refresh itself is a request
 * in the gate's first lane) and the request repeated; 429 pauses the mailbox for Retry-After
 * and repeats. Reads (list_*, get_messages, search) also repeat transient failures (5xx,
 * resets, command-level INTERNAL) with backoff, but not a timeout: a stalled vendor is reported
 * within the configured timeout. Writes are repeated only after answers
 * proving the vendor did nothing (429, TOKEN_EXPIRED, AUTH_UNAVAILABLE, no connection): a
 * write that may have been applied is never sent twice, it throws OutcomeUnknownError.
 */
/**
 * Write requests queued in the gate or on the wire at once; writes issued meanwhile share the
 * next request (write-batcher.ts). Leaves most of the 15 places in flight to reads.
 */
const maxOutstandingWrites = 4;

export class MailboxClient implements MailboxApi {
  private readonly readCommands: Set<string>;
  private readonly sharedReads: Array<{
    commands: Command[];
    lane: Lane;
    resolve(results: CommandResult[]): void;
    reject(err: unknown): void;
  }> = [];

  private readonly tokens: TokenManager;
  private readonly writes = new WriteBatcher(
    (take, lane) => this.requestWhenGranted(take, lane, false),
    maxCommandsPerRequest,
    maxOutstandingWrites,
  );

  constructor(
    readonly mailbox: string,
    private readonly http: Http,
    private readonly readUrl: string,
    private readonly assumptions: Assumptions,
    secrets: TokenVault,
    refreshCall: RefreshCall,
    private readonly limiter: RateLimiter,
    private readonly logger: Logger,
    private readonly observer: VendorObserver = ignoreVendorTraffic,
    /** Times the retries' backoff and the dead-token retries (tests move it). */
    private readonly clock: Clock = systemClock,
    private readonly writeFence: () => void = () => undefined,
  ) {
    const c = assumptions.commands;
    this.readCommands = new Set([c.listFolders.name, c.listThreads.name, c.getMessages.name, c.search.name]);
    // the refresh is a request like any other (the vendor may count it), in the first lane.
    // Callers release their slot before they wait for it, so 15 requests rejected at once as
    // expired cannot hold every place the refresh needs.
    this.tokens = new TokenManager(
      mailbox,
      secrets,
      (refreshToken) => this.gated('refresh', false, (answered) => refreshCall(refreshToken, answered)),
      logger,
      clock,
    );
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((r) => this.clock.after(ms, r));
  }

  /**
   * One call with the mailbox's access token: an expired one is refreshed once, a rotated one
   * followed. The outcome is reported to the observer (readiness: the vendor and the token work).
   */
  private async authed<T>(
    lane: Lane,
    idempotent: boolean,
    call: (token: string, answered: () => void) => Promise<T>,
  ): Promise<T> {
    let token = await this.tokens.usable();
    let refreshed = false;
    const recover: Recovery = async (err) => {
      if (!(err instanceof VendorError)) return false;
      const newer = err.code === 'INVALID_TOKEN' ? this.tokens.replacement(token) : null;
      if (newer) token = newer;
      // a revoked access token may come with a live refresh token; a refused refresh marks the account
      else if ((err.code === 'TOKEN_EXPIRED' || err.code === 'INVALID_TOKEN') && !refreshed) {
        if (err.code === 'TOKEN_EXPIRED') this.observer.retry('token_expired');
        token = await this.tokens.refresh(token);
        refreshed = true;
      } else return false;
      return true;
    };
    try {
      const result = await this.gated(lane, idempotent, (answered) => call(token, answered), recover);
      this.observer.mailboxResult(this.mailbox, null);
      return result;
    } catch (err) {
      // refusals of one request's arguments still prove the vendor and the token work
      const answered = err instanceof VendorError && !err.transient && err.kind !== 'auth';
      this.observer.mailboxResult(this.mailbox, answered ? null : (err as Error));
      throw err;
    }
  }

  /**
   * One call through the gate with the retry policy above. The slot is held until the call
   * settles (a body read included); it is given back before any waiting (refresh, backoff).
   */
  private async gated<T>(
    lane: GateLane,
    idempotent: boolean,
    call: (answered: () => void) => Promise<T>,
    recover?: Recovery,
  ): Promise<T> {
    let rateRetries = 0;
    let transientRetries = 0;
    for (;;) {
      const slot = await this.limiter.acquire(lane);
      let result: T;
      try {
        result = await call(slot.answered);
      } catch (err) {
        slot.release();
        if (recover && (await recover(err))) continue;
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
        // a vendor that let the timeout pass stalls: the caller hears so within the timeout, not after every retry's
        const transient =
          (err instanceof VendorError || err instanceof TransportError) &&
          err.transient &&
          !(err instanceof TransportError && err.timedOut);
        if (transient && (idempotent || neverApplied) && transientRetries < maxTransientRetries) {
          this.logger.debug(
            { mailbox: this.mailbox, attempt: transientRetries + 1, error: (err as Error).message },
            'transient vendor failure; retrying',
          );
          this.observer.retry('transient');
          await this.sleep(backoff(transientRetries++));
          continue;
        }
        throw err;
      }
      slot.release();
      return result;
    }
  }

  /** One request of at most 20 commands; results put back in command order by their id. */
  private request(commands: Command[], lane: Lane): Promise<CommandResult[]> {
    const idempotent = commands.every((c) => this.readCommands.has(c.command));
    return this.requestWhenGranted(() => commands, lane, idempotent);
  }

  /** The same, with the commands taken when the gate grants the request (write-batcher.ts). */
  private async requestWhenGranted(take: () => Command[], lane: Lane, idempotent: boolean): Promise<CommandResult[]> {
    let granted: Command[] | undefined;
    const { response, commands } = await this.authed(lane, idempotent, async (token, answered) => {
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

  /**
   * Reads issued in the same turn of the event loop share requests, 20 commands to a request:
   * a sync asks for the next list_threads page and for the messages of the page it just got
   * at the same moment, so both travel in one request instead of two. Commands are packed
   * highest lane first and a request takes the highest lane of its commands, so a click that
   * shares a request with a sync's reads is not queued behind the sync. Writes share requests only
   * with other writes (write-batcher.ts).
   */
  private runOnce(commands: Command[], lane: Lane): Promise<CommandResult[]> {
    if (this.isWrite(commands)) return this.send(commands, lane);
    return new Promise((resolve, reject) => {
      if (!this.sharedReads.length) setImmediate(() => this.sendSharedReads());
      this.sharedReads.push({ commands, lane, resolve, reject });
    });
  }

  private sendSharedReads(): void {
    const callers = this.sharedReads.splice(0).sort((a, b) => laneRank(a.lane) - laneRank(b.lane));
    const commands = callers.flatMap((c) => c.commands);
    const lanes = callers.flatMap((c) => c.commands.map(() => c.lane));
    const requests = chunk(commands, maxCommandsPerRequest).map((c, i) =>
      this.request(c, highestLane(lanes.slice(i * maxCommandsPerRequest, (i + 1) * maxCommandsPerRequest))),
    );
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

  private async send(commands: Command[], lane: Lane): Promise<CommandResult[]> {
    const parts = await Promise.all(chunk(commands, maxCommandsPerRequest).map((c) => this.request(c, lane)));
    return parts.flat();
  }

  /** Requests run concurrently through the limiter; failed reads are repeated on their own. */
  async run(commands: Command[], lane: Lane = this.isWrite(commands) ? 'write' : 'sync'): Promise<CommandResult[]> {
    const results = await this.runOnce(commands, lane);
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
      await this.sleep(backoff(attempt));
      const repeated = await this.runOnce(
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

  /**
   * A write over many ids: groups of 50, 20 groups a request, every group's outcome collected.
   * Groups whose outcome is unknown make the whole call throw OutcomeUnknownError (with the
   * outcomes that are known); otherwise the first definite failure is thrown.
   */
  private async bulk(
    command: string,
    ids: string[],
    args: Record<string, unknown>,
    doneField: string,
    lane: Lane,
  ): Promise<BulkResult> {
    const groups = chunk([...new Set(ids)], maxIdsPerGetMessages);
    const requests = chunk(groups, maxCommandsPerRequest);
    const settled = await Promise.allSettled(
      requests.map((r) =>
        this.writes.submit(
          r.map((group) => ({ command, args: { ids: group, ...args } })),
          lane,
        ),
      ),
    );
    const out: BulkResult = { done: [], notFound: [] };
    const unknown: string[] = [];
    let unknownCause: unknown = null;
    let failure: unknown = null;
    const fail = (group: string[], err: unknown) => {
      if (mayHaveApplied(err)) {
        unknown.push(...group);
        unknownCause ??= err;
      } else failure ??= err;
    };
    for (const [r, outcome] of settled.entries()) {
      if (outcome.status === 'rejected') {
        fail(requests[r].flat(), outcome.reason);
        continue;
      }
      for (const [g, result] of outcome.value.entries()) {
        if (result.type !== 'SUCCESS') {
          fail(requests[r][g], this.failure(result));
          continue;
        }
        const data = (result.data ?? {}) as Record<string, unknown>;
        out.done.push(...((data[doneField] as string[]) ?? []));
        out.notFound.push(...((data[this.assumptions.resultFields.notFound] as string[]) ?? []));
      }
    }
    if (unknown.length) throw new OutcomeUnknownError(command, unknown, out, unknownCause);
    if (failure) throw failure;
    return out;
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
    return this.authed(lane, true, (token, answered) =>
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
