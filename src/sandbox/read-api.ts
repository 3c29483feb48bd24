import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type http from 'node:http';
import type { WireFormat } from './wire-format';
import type { CommandResult } from '../upstream/types';
import { ArgError } from './args';
import {
  encodeJson,
  isObject,
  readJson,
  sendEncoded,
  sendJson,
  sendTruncated,
  type Conditions,
  type Handler,
  type JsonBody,
} from './http';
import { commandTable, type CommandContext } from './read-commands';
import type { SandboxStore } from './store';
import { accessLifetimeMs, type TokenAuthority } from './tokens';
import type { Traffic } from './traffic';

/** The reading interface host: POST /v1, GET /v1/raw, POST /v1/token/refresh (spec 4.1-4.3, 5, 7.2, 8). */

export const maxCommandsPerRequest = 20;
const bodyLimit = 10 * 1024 * 1024;
const jsonType = { 'content-type': 'application/json; charset=utf-8' };

/** An answer body made ahead, at the mailbox revision it shows. */
interface PreparedAnswer {
  revision: number;
  body: Buffer;
}

export interface ReadDeps {
  store: SandboxStore;
  tokens: TokenAuthority;
  traffic: Traffic;
  conditions: Conditions;
  wireFormat: WireFormat;
}

export function readApi(deps: ReadDeps): Handler {
  const { store, tokens, traffic, conditions, wireFormat: a } = deps;
  const commands = commandTable(a);
  const fail = (
    res: http.ServerResponse,
    status: number,
    code: string,
    message: string,
    headers?: Record<string, string>,
  ) => sendJson(res, status, { type: a.errorType, code, message }, headers);

  const writeCommands = new Set([
    a.commands.flag.name,
    a.commands.label.name,
    a.commands.move.name,
    a.commands.send.name,
    a.commands.reply.name,
  ]);

  /** Rate-limit admission of a request tied to `mailbox`; false when answered 429. The admission ends when the response closes. */
  function admit(req: http.IncomingMessage, res: http.ServerResponse, mailbox: string): boolean {
    const admission = traffic.admit(req.socket.remoteAddress ?? 'unknown', mailbox);
    if (!admission.ok) {
      fail(res, 429, 'RATE_LIMITED', 'over 15 requests per second or 15 in flight', {
        'retry-after': String(admission.retryAfter),
      });
      return false;
    }
    res.once('close', admission.done);
    return true;
  }

  /** Token check and rate-limit admission (A23: an expired token's request counts too). */
  function authorize(req: http.IncomingMessage, res: http.ServerResponse): string | null {
    const header = req.headers.authorization;
    if (header === undefined) {
      fail(res, 401, 'MISSING_AUTH_HEADER', 'no Authorization header');
      return null;
    }
    const check = tokens.verifyAccess(header.replace(/^Bearer\s+/i, '').trim());
    if (!check.ok) {
      if (check.code === 'TOKEN_EXPIRED' && a.limitCountsTokenRequests && !admit(req, res, check.mailbox)) return null;
      fail(
        res,
        401,
        check.code,
        check.code === 'TOKEN_EXPIRED'
          ? 'access token expired; use the refresh token'
          : 'access token is malformed, unknown or revoked',
      );
      return null;
    }
    return admit(req, res, check.mailbox) ? check.mailbox : null;
  }

  /** Latency and faults; false when the request was answered (or dropped) by a fault. */
  async function survive(req: http.IncomingMessage, res: http.ServerResponse): Promise<boolean> {
    const fault = await conditions.before(req);
    if (fault === 'reset') req.socket.destroy();
    else if (fault === 'unavailable') fail(res, 503, 'AUTH_UNAVAILABLE', 'authentication temporarily unavailable');
    return fault === null;
  }

  const commandName = (cmd: unknown): string => (isObject(cmd) && typeof cmd.command === 'string' ? cmd.command : '');

  function runCommand(ctx: CommandContext, cmd: unknown, position: number, errorRate?: number): CommandResult {
    const name = commandName(cmd);
    const base = { command: name, id: String(position) };
    const error = (code: string, message: string): CommandResult => ({ ...base, type: a.errorType, code, message });
    if (!isObject(cmd) || name === '') return error('INVALID_ARGS', 'each command needs a command name');
    const fn = commands.get(name);
    if (!fn) return error(a.unknownCommandCode, `unknown command: ${name}`);
    if (cmd.args !== undefined && !isObject(cmd.args)) return error('INVALID_ARGS', 'args must be an object');
    if (conditions.roll(errorRate)) return error('INTERNAL', 'internal error');
    try {
      return { ...base, type: 'SUCCESS', data: fn((cmd.args as Record<string, unknown>) ?? {}, ctx) };
    } catch (err) {
      if (err instanceof ArgError) return error('INVALID_ARGS', err.message);
      return error('INTERNAL', 'internal error');
    }
  }

  /** The commands of a request's body, or why the request is refused. */
  function commandList(body: JsonBody): { ok: true; list: unknown[] } | { ok: false; status: number; message: string } {
    if (!body.ok) return body;
    const list = isObject(body.value) ? body.value.commands : undefined;
    if (!Array.isArray(list) || list.length === 0)
      return { ok: false, status: 400, message: 'commands must be a non-empty array' };
    if (list.length > maxCommandsPerRequest)
      return { ok: false, status: 400, message: `at most ${maxCommandsPerRequest} commands per request` };
    return { ok: true, list };
  }

  const holdsWrite = (list: unknown[]) => list.some((cmd) => isObject(cmd) && writeCommands.has(String(cmd.command)));

  /** The answer body of `list`: each command's result, its errors (and faults drawn per command) inside. */
  const answer = (ctx: CommandContext, list: unknown[], errorRate?: number): Buffer =>
    encodeJson({ type: 'SUCCESS', results: list.map((cmd, i) => runCommand(ctx, cmd, i, errorRate)) });

  /**
   * The answer of a request that changes nothing, made on arrival: the latency stands for the
   * vendor's whole answer time, so the sandbox's own work is done within it. Only where making
   * it then and at the latency's end cannot differ: no write, no fault drawn per command, no
   * listing that notes labels A29 keeps listing; and served only if the mailbox's revision is
   * still the same by then (see commandEndpoint).
   */
  function prepare(req: http.IncomingMessage, mailbox: string, body: JsonBody): PreparedAnswer | null {
    const parsed = commandList(body);
    const box = store.mailbox(mailbox);
    if (!parsed.ok || !box || holdsWrite(parsed.list) || conditions.of(req).errorRate) return null;
    if (a.emptyLabelsListed && parsed.list.some((cmd) => commandName(cmd) === a.commands.listFolders.name)) return null;
    return { revision: box.revision, body: answer({ store, box, wireFormat: a }, parsed.list) };
  }

  async function commandEndpoint(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const mailbox = authorize(req, res);
    if (!mailbox) return;
    // the latency runs from arrival; the body is read and a read's answer made meanwhile
    const survived = survive(req, res);
    const body = await readJson(req, bodyLimit);
    const early = prepare(req, mailbox, body);
    if (!(await survived)) return;
    const parsed = commandList(body);
    if (!parsed.ok) return fail(res, parsed.status, 'INVALID_ARGS', parsed.message);
    const { list } = parsed;
    const box = store.mailbox(mailbox);
    if (!box) return fail(res, 401, 'INVALID_TOKEN', 'the mailbox of this token no longer exists');
    for (const cmd of list) traffic.countCommand(box.address, commandName(cmd));
    const faults = conditions.of(req);
    const data =
      early && early.revision === box.revision && !faults.errorRate
        ? early.body
        : answer({ store, box, wireFormat: a }, list, faults.errorRate);
    if (holdsWrite(list) && conditions.roll(faults.lostWriteAnswerRate)) req.socket.destroy();
    else if (conditions.roll(faults.truncateRate)) sendTruncated(res, 200, jsonType, data);
    else sendEncoded(res, 200, data);
  }

  async function raw(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    const mailbox = authorize(req, res);
    if (!mailbox || !(await survive(req, res))) return;
    const messageId = url.searchParams.get('message_id');
    const attachmentId = url.searchParams.get('attachment_id');
    if (!messageId || !attachmentId) return fail(res, 400, 'INVALID_ARGS', 'message_id and attachment_id are required');
    const file = store
      .mailbox(mailbox)
      ?.messages.get(messageId)
      ?.content.attachments()
      .find((f) => f.meta.attachment_id === attachmentId);
    if (!file) return fail(res, 404, 'NOT_FOUND', 'no such message or attachment');
    traffic.countRaw(mailbox);
    const head = { 'content-type': 'application/octet-stream', 'x-original-content-type': file.meta.mime_type };
    if (conditions.roll(conditions.of(req).truncateRate))
      return sendTruncated(res, 200, head, Buffer.concat([...file.chunks()]));
    res.writeHead(200, { ...head, 'content-length': String(file.meta.size_bytes) });
    // a stream pipeline cleans up its listeners, unlike racing once() per chunk
    await pipeline(Readable.from(file.chunks()), res).catch(() => undefined);
  }

  async function refresh(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!(await survive(req, res))) return;
    const body = await readJson(req, 64 * 1024);
    if (!body.ok) return fail(res, body.status, 'INVALID_ARGS', body.message);
    const token = isObject(body.value) ? body.value.refresh_token : undefined;
    if (typeof token !== 'string' || token === '') return fail(res, 400, 'INVALID_ARGS', 'refresh_token is required');
    const owner = tokens.refreshOwner(token);
    if (owner && a.limitCountsTokenRequests && !admit(req, res, owner)) return;
    const result = tokens.rotate(token);
    if (!result.ok || !result.pair)
      return fail(
        res,
        401,
        result.ok ? 'INVALID_TOKEN' : result.code,
        'refresh token is invalid, used, revoked or expired',
      );
    traffic.countRefresh(result.mailbox);
    const t = a.tokenRefresh;
    sendJson(res, 200, {
      [t.accessField]: result.pair.accessToken,
      [t.refreshField]: result.pair.refreshToken,
      [t.expiresInField]: accessLifetimeMs / 1000,
    });
  }

  return async (req, res, url) => {
    const route = `${req.method} ${url.pathname.replace(/\/+$/, '')}`;
    if (route === 'POST /v1') return commandEndpoint(req, res);
    if (route === 'GET /v1/raw') return raw(req, res, url);
    if (route === 'POST /v1/token/refresh') return refresh(req, res);
    fail(res, 404, 'NOT_FOUND', `no route ${req.method} ${url.pathname}`);
  };
}
