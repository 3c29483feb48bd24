import { Refusal } from '../domain/refusal';
import { BadUrl, TooBig } from '../domain/catenate';
import { ConnectorError, OutcomeUnknownError } from '../domain/connector';
import { FencedError, StoreUnavailableError } from '../store/store-errors';

/**
 * Typed command failures. imap-core answers a hook error that carries `imapResponse` with
 * exactly that status, response code and text (patch `hook-error-response`, see
 * packages/imap-core/README.md); any other error would become a bare `NO [TEMPFAIL]`. Users need to know
 * why a command failed (vendor down, operation not offered, tokens dead), so every hook
 * failure is turned into an ImapError first.
 */

/** RFC 5530 response codes the bridge answers failures with (and RFC 3516's UNKNOWN-CTE, RFC 4469's BADURL and TOOBIG). */
export type ImapResponseCode =
  | 'UNAVAILABLE'
  | 'CANNOT'
  | 'NONEXISTENT'
  | 'ALREADYEXISTS'
  | 'SERVERBUG'
  | 'PRIVACYREQUIRED'
  | 'UNKNOWN-CTE'
  | 'BADURL'
  | 'TOOBIG';

export class ImapError extends Error {
  readonly imapResponse: { response: 'NO'; code: ImapResponseCode; message: string; argument?: string };

  /** `argument`: text after the code, as BADURL's URL. */
  constructor(code: ImapResponseCode, text: string, argument?: string) {
    super(text);
    this.name = 'ImapError';
    this.imapResponse = { response: 'NO', code, message: text, argument };
  }

  get code(): ImapResponseCode {
    return this.imapResponse.code;
  }
}

/** Why a session of a mailbox another node takes over is refused. */
export const mailboxMoving = 'This mailbox is moving to another bridge node; log in again in a moment';

const refusalCodes: Record<Refusal['reason'], ImapResponseCode> = {
  cannot: 'CANNOT',
  nonexistent: 'NONEXISTENT',
  unavailable: 'UNAVAILABLE',
  alreadyexists: 'ALREADYEXISTS',
};

function vendorFailure(err: ConnectorError): ImapError {
  const code = err.vendorCode;
  switch (err.failure) {
    case 'tokens':
      return new ImapError('UNAVAILABLE', `Vendor tokens are no longer valid: ${err.message}`);
    case 'unreachable':
      return new ImapError('UNAVAILABLE', 'Mail vendor unreachable, try again shortly');
    case 'unsupported':
      return new ImapError('CANNOT', `The mail vendor does not offer this operation (${code}); nothing was changed`);
    case 'not_found':
      return new ImapError('NONEXISTENT', `Not found at the mail vendor (${code})`);
    case 'refused':
      return new ImapError('CANNOT', `The mail vendor refused the request (${code}); nothing was changed`);
    case 'credentials':
      return new ImapError(
        'UNAVAILABLE',
        `The mail vendor refused the account's credentials (${code}); run "mailbridge doctor"`,
      );
    case 'rate':
      return new ImapError('UNAVAILABLE', `The mail vendor is rate limiting this mailbox (${code}), try again shortly`);
    case 'unavailable':
      return new ImapError('UNAVAILABLE', `The mail vendor is temporarily unavailable (${code}), try again shortly`);
  }
}

/** The answer a client gets for `err`; an unexpected error says only where to look. */
export function toImapError(err: unknown): ImapError {
  if (err instanceof ImapError) return err;
  if (err instanceof OutcomeUnknownError)
    return new ImapError(
      'UNAVAILABLE',
      'The mail vendor did not confirm the change; it may or may not have been applied, try again shortly',
    );
  if (err instanceof ConnectorError) return vendorFailure(err);
  if (err instanceof Refusal) return new ImapError(refusalCodes[err.reason], err.message);
  if (err instanceof BadUrl) return new ImapError('BADURL', err.message, err.url);
  if (err instanceof TooBig) return new ImapError('TOOBIG', err.message);
  if (err instanceof StoreUnavailableError)
    return new ImapError('UNAVAILABLE', "The bridge's database is unreachable; nothing was changed, try again shortly");
  if (err instanceof FencedError) return new ImapError('UNAVAILABLE', mailboxMoving);
  return new ImapError('SERVERBUG', 'Internal bridge error; see the bridge log');
}
