import type { WireFormat } from './wire-format';
import type { Accounts } from './accounts';
import { ArgError, optString, reqString } from './args';
import { sendJson, isObject, type Conditions, type Handler } from './http';
import { fail, keyedRoute } from './mail-api';
import type { SandboxStore } from './store';

/** The management host: shared domains (spec 4.6) and sender creation (4.7, A18). */

export interface GraphDeps {
  store: SandboxStore;
  accounts: Accounts;
  conditions: Conditions;
  wireFormat: WireFormat;
  /** Mutable: the control API rotates it. */
  domains: string[];
}

export function graphApi(deps: GraphDeps): Handler {
  const { store, accounts, conditions, wireFormat: a } = deps;
  let created = 0;

  return async (req, res, url) => {
    const route = `${req.method} ${url.pathname.replace(/\/+$/, '')}`;
    if (route === 'GET /v3.0/free/domains') {
      const started = process.hrtime.bigint();
      const fault = await conditions.before(req);
      if (fault === 'reset') return void req.socket.destroy();
      if (fault === 'unavailable') return fail(res, 503, 'AUTH_UNAVAILABLE', 'Service temporarily unavailable');
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      return sendJson(res, 200, { success: true, domains: [...deps.domains], responseTime: `${ms.toFixed(1)}ms` });
    }
    if (route === `POST ${a.senderPath}`) {
      return keyedRoute(req, res, conditions, accounts, (_account, body, r) => {
        try {
          if (!isObject(body)) throw new ArgError('body must be a JSON object');
          const domain = reqString(body, 'domain').toLowerCase();
          if (!deps.domains.includes(domain))
            throw new ArgError('domain is neither a shared domain nor a verified own domain');
          const local = (optString(body, 'local_part') ?? `sender${++created}`).toLowerCase();
          if (!/^[a-z0-9][a-z0-9._+-]{0,63}$/.test(local)) throw new ArgError('local_part is not a valid mailbox name');
          const email = `${local}@${domain}`;
          if (store.mailbox(email)) throw new ArgError('sender already exists');
          store.addMailbox(email);
          sendJson(r, 200, { success: true, sender: { email, domain, name: optString(body, 'name') ?? null } });
        } catch (err) {
          if (!(err instanceof ArgError)) throw err;
          fail(r, 400, a.sendValidationCode, err.message);
        }
      });
    }
    fail(res, 404, 'NOT_FOUND', `no route ${req.method} ${url.pathname}`);
  };
}
