import type http from 'node:http';
import type { WireFormat } from './wire-format';
import type { Account, Accounts } from './accounts';
import { ArgError } from './args';
import { sanitizeHtml, sanitizeSubject, htmlToText } from './body-format';
import { isObject, readJson, sendJson, type Conditions, type Handler } from './http';
import { type Quarantine, quarantineLifetimeMs, spamTriggers } from './quarantine';
import { hash32, hex32 } from './rng';
import { parseSendRequest } from './send-request';
import type { Outgoing, SandboxStore } from './store';

/** The send host: POST /v3.0/send and /v3.0/quarantine/release (spec 4.4, 4.5, 7.1). */

const bodyLimit = 40 * 1024 * 1024;

export interface OutboxEntry {
  id: string;
  account: string;
  at: string;
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  shown_to: string[];
  shown_cc: string[];
  subject: string;
  message_id: string;
  reply_to: string | null;
  delivered_to: string[];
  attachments: Array<{ filename: string; size: number }>;
  released_from: string | null;
}

export interface MailDeps {
  store: SandboxStore;
  accounts: Accounts;
  quarantine: Quarantine;
  conditions: Conditions;
  wireFormat: WireFormat;
  outbox: OutboxEntry[];
  now(): number;
}

type Keyed = (account: Account, body: unknown, res: http.ServerResponse) => void;

export const fail = (res: http.ServerResponse, status: number, code: string, error: string) =>
  sendJson(res, status, { error, code });

/**
 * What every keyed vendor route (mail and graph hosts) does first: latency and faults, the
 * key check, then the JSON body. Answers the request itself when any of them fails.
 */
export async function keyedRoute(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  conditions: Conditions,
  accounts: Accounts,
  handle: Keyed,
): Promise<void> {
  const fault = await conditions.before(req);
  if (fault === 'reset') return void req.socket.destroy();
  if (fault === 'unavailable') return fail(res, 503, 'AUTH_UNAVAILABLE', 'Service temporarily unavailable');
  const auth = accounts.authenticate(req);
  if (!auth.ok) return fail(res, auth.status, auth.code, auth.error);
  if (conditions.roll(conditions.of(req).errorRate))
    return fail(res, 500, 'INTERNAL_SERVER_ERROR', 'Unexpected server error; retry');
  const body = await readJson(req, bodyLimit);
  if (!body.ok) return fail(res, body.status, 'VALIDATION_ERROR', body.message);
  handle(auth.account, body.value, res);
}

export function mailApi(deps: MailDeps): Handler {
  const { store, accounts, quarantine, conditions, wireFormat: a, outbox } = deps;
  let sends = 0;

  function queue(account: Account, out: Outgoing, releasedFrom: string | null): string {
    const id = `em_${hex32(hash32(store.seed, ++sends, 0xe1))}${sends.toString(36)}`;
    const { messageId, deliveredTo } = store.deliver(out);
    const emails = (list: Outgoing['to'] | undefined) => (list ?? []).map((r) => r.email);
    outbox.push({
      id,
      account: account.id,
      at: new Date(deps.now()).toISOString(),
      from: out.fromEmail,
      // the request's recipients; a copy may show others (A26: shown_to, shown_cc)
      to: out.deliverTo ?? emails(out.to),
      cc: out.deliverTo ? [] : emails(out.cc),
      bcc: emails(out.bcc),
      shown_to: emails(out.to),
      shown_cc: emails(out.cc),
      subject: out.subject,
      message_id: messageId,
      reply_to: out.replyTo ?? null,
      delivered_to: deliveredTo,
      attachments: (out.files ?? []).map((f) => ({ filename: f.filename, size: f.data.length })),
      released_from: releasedFrom,
    });
    return id;
  }

  const send: Keyed = (account, body, res) => {
    let out: Outgoing;
    try {
      out = parseSendRequest(body, a);
    } catch (err) {
      if (err instanceof ArgError) return fail(res, 400, a.sendValidationCode, err.message);
      throw err;
    }
    if (spamTriggers.test(`${out.subject}\n${out.html}\n${out.text}`)) {
      const held = quarantine.hold(account, out);
      return sendJson(res, 403, {
        error: 'The email content was flagged by the spam filter and was not queued',
        code: 'SPAM_DETECTED',
        detectionId: held.detectionId,
        quarantine_id: held.quarantineId,
        release_instructions: held.quarantineId
          ? `POST /v3.0/quarantine/release with {"quarantine_id":"${held.quarantineId}"} within 3 hours`
          : null,
        expires_in: held.quarantineId ? `${quarantineLifetimeMs / 3_600_000} hours` : null,
      });
    }
    sendJson(res, 200, { success: true, id: queue(account, out, null) });
  };

  const release: Keyed = (account, body, res) => {
    const id = isObject(body) ? body.quarantine_id : undefined;
    if (typeof id !== 'string' || id === '')
      return fail(res, 400, 'MISSING_QUARANTINE_ID', 'quarantine_id is required');
    const outcome = quarantine.release(account, id);
    if (!outcome.ok) return fail(res, outcome.status, outcome.code, outcome.error);
    const html = sanitizeHtml(outcome.payload.html);
    const clean: Outgoing = {
      ...outcome.payload,
      subject: sanitizeSubject(outcome.payload.subject),
      html,
      text: htmlToText(html),
    };
    sendJson(res, 200, { success: true, [a.releaseIdField]: queue(account, clean, id) });
  };

  return async (req, res, url) => {
    const route = `${req.method} ${url.pathname.replace(/\/+$/, '')}`;
    if (route === 'POST /v3.0/send') return keyedRoute(req, res, conditions, accounts, send);
    if (route === 'POST /v3.0/quarantine/release') return keyedRoute(req, res, conditions, accounts, release);
    fail(res, 404, 'NOT_FOUND', `no route ${req.method} ${url.pathname}`);
  };
}
