import fs from 'node:fs';
import path from 'node:path';
import { Refusal } from '../domain/refusal';
import { NeedsNewTokensError, OutcomeUnknownError, TransportError, VendorError } from '../upstream/errors';

/**
 * imap-core turns any hook error into a bare `NO [TEMPFAIL]`. Users need to know WHY (vendor
 * down, command not offered by the vendor, tokens dead), so hooks stash the failure on the
 * session with `rememberFailure` and every command handler is wrapped once to rewrite that
 * bare answer into `NO [<code>] <reason>`.
 */

export interface ImapFailure {
  code: 'UNAVAILABLE' | 'CANNOT' | 'NONEXISTENT' | 'SERVERBUG' | 'LIMIT' | 'AUTHORIZATIONFAILED';
  text: string;
}

const refusalCodes: Record<Refusal['reason'], ImapFailure['code']> = {
  cannot: 'CANNOT',
  nonexistent: 'NONEXISTENT',
  unavailable: 'UNAVAILABLE',
};

interface SessionWithFailure {
  bridgeFailure?: ImapFailure | null;
}

export function describeFailure(err: unknown): ImapFailure {
  if (err instanceof NeedsNewTokensError)
    return { code: 'UNAVAILABLE', text: `Vendor tokens are no longer valid: ${err.message}` };
  if (err instanceof OutcomeUnknownError)
    return {
      code: 'UNAVAILABLE',
      text: 'The mail vendor did not confirm the change; it may or may not have been applied, try again shortly',
    };
  if (err instanceof TransportError) return { code: 'UNAVAILABLE', text: 'Mail vendor unreachable, try again shortly' };
  if (err instanceof VendorError) {
    switch (err.kind) {
      case 'unsupported':
        return {
          code: 'CANNOT',
          text: `The mail vendor does not offer this operation (${err.code}); nothing was changed`,
        };
      case 'not_found':
        return { code: 'NONEXISTENT', text: `Not found at the mail vendor (${err.code})` };
      case 'invalid':
        return { code: 'CANNOT', text: `The mail vendor refused the request (${err.code}); nothing was changed` };
      case 'auth':
      case 'account':
        return {
          code: 'UNAVAILABLE',
          text: `The mail vendor refused the account's credentials (${err.code}); run "mailbridge doctor"`,
        };
      case 'rate':
        return {
          code: 'UNAVAILABLE',
          text: `The mail vendor is rate limiting this mailbox (${err.code}), try again shortly`,
        };
      default:
        return {
          code: 'UNAVAILABLE',
          text: `The mail vendor is temporarily unavailable (${err.code}), try again shortly`,
        };
    }
  }
  if (err instanceof Refusal) return { code: refusalCodes[err.reason], text: err.message };
  return { code: 'SERVERBUG', text: 'Internal bridge error; see the bridge log' };
}

export function rememberFailure(session: SessionWithFailure, err: unknown): ImapFailure {
  const failure = describeFailure(err);
  session.bridgeFailure = failure;
  return failure;
}

interface CommandModule {
  handler: (
    this: { session: SessionWithFailure },
    command: unknown,
    callback: (err: unknown, response?: ImapResponse) => void,
    next?: unknown,
  ) => void;
  __bridgeWrapped?: boolean;
}

interface ImapResponse {
  response: string;
  code?: string | false;
  message?: string;
}

export function installFailureResponses(): void {
  const dir = path.join(path.dirname(require.resolve('@zone-eu/wildduck/imap-core')), 'lib', 'commands');
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.js'))) {
    const mod = require(path.join(dir, file)) as CommandModule;
    if (typeof mod.handler !== 'function' || mod.__bridgeWrapped) continue;
    const original = mod.handler;
    mod.handler = function wrapped(command, callback, next) {
      this.session.bridgeFailure = null;
      original.call(
        this,
        command,
        (err, response) => {
          const failure = this.session.bridgeFailure;
          if (failure && response && response.response === 'NO' && (!response.code || response.code === 'TEMPFAIL')) {
            this.session.bridgeFailure = null;
            return callback(err, { response: 'NO', code: failure.code, message: failure.text });
          }
          return callback(err, response);
        },
        next,
      );
    };
    mod.__bridgeWrapped = true;
  }
}
