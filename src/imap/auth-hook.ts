import type { Socket } from 'node:net';
import type { LoginGuard } from '../auth/login-guard';
import type { AccountRegistry } from '../domain/account-registry';
import type { ConnectionGate } from '../listen/connection-gate';
import type { Logger } from '../log';
import { isLoopback } from '../util/net';
import { ImapError, mailboxMoving, toImapError } from './imap-error';
import { verifyHop } from './node-hop';
import { type NodeHop, proxyToOwner } from './owner-proxy';
import { accountId } from '../model/account-id';

/** Where a client of a mailbox another node serves is sent (./owner-proxy.ts). */
export interface OwnerRoute {
  /**
   * The owner's IMAP listener (host:port) for these credentials; 'unavailable' when they are
   * right but no node serves the mailbox at this moment (a takeover under way); null when
   * they are wrong.
   */
  route(username: string, password: string): Promise<{ address: string; mailbox: string } | 'unavailable' | null>;
  hop: NodeHop;
}

export interface AuthDependencies {
  accounts: AccountRegistry;
  logins: LoginGuard;
  logger: Logger;
  /** The connection caps this listener counts its sessions in. */
  gate: ConnectionGate;
  owners: OwnerRoute | null;
}

interface Login {
  method?: string;
  /** SASL PLAIN's authorization identity (imap-core patch 037); absent for LOGIN. */
  authzid?: string;
  username: string;
  password: string;
  connection?: { secure?: boolean; remoteAddress?: string };
}

type Callback = (err: Error | null, ...results: unknown[]) => void;

const moving = () => new ImapError('UNAVAILABLE', mailboxMoving);

/**
 * imap-core's onAuth: the bridge password, checked under the login throttle; on a node that
 * does not serve the mailbox, a hand-over to the owner; on the owner, a session another node
 * forwarded (node-hop.ts), counted from then on under the client's address.
 */
export function authHook(deps: AuthDependencies) {
  const { accounts, logins, logger, gate, owners } = deps;

  const forwarded = (login: Login & { authzid: string }, session: { id: string }, callback: Callback) => {
    const client = owners && verifyHop(owners.hop.key, session.id, login);
    if (!client) return null;
    if (!gate.reattribute(session.id, client))
      return callback(new ImapError('UNAVAILABLE', `Too many connections from ${client}`));
    const view = accounts.get(login.authzid);
    if (!view) return callback(moving());
    logger.info(
      { account: view.account, client, node: login.connection?.remoteAddress },
      'imap session forwarded here',
    );
    return callback(null, { user: { id: view.account, username: view.account } });
  };

  return (login: Login, session: { id: string }, callback: Callback) => {
    const peer = login.connection?.remoteAddress ?? '';
    if (login.connection && !login.connection.secure && !isLoopback(peer)) {
      return callback(
        new ImapError('PRIVACYREQUIRED', 'Run STARTTLS first: plaintext login is accepted only from this machine'),
      );
    }
    const actingAs = login.authzid?.trim();
    if (actingAs && forwarded({ ...login, authzid: actingAs }, session, callback) !== null) return;
    let forward: { address: string; mailbox: string } | 'unavailable' | null = null;
    logins
      .login({ protocol: 'imap', peer, username: login.username }, async () => {
        // acting as another identity is only for nodes (RFC 4616 lets a server refuse it)
        if (actingAs && accountId(actingAs) !== accountId(login.username)) return null;
        const local = await accounts.authenticate(login.username, login.password);
        if (local || !owners) return local;
        forward = await owners.route(login.username, login.password);
        return forward === 'unavailable' ? login.username : (forward?.mailbox ?? null);
      })
      .then(
        (account) => {
          if (!account) return callback(null);
          const target = forward;
          if (target === 'unavailable') return callback(moving());
          if (!target || !owners) return callback(null, { user: { id: account, username: account } });
          callback(null, {
            handOver: (socket: Socket, tag: string, unread: Buffer) =>
              proxyToOwner(socket, tag, unread, { ...target, client: peer }, owners.hop, logger),
          });
        },
        // imap-core would answer an error without an IMAP response as "NO [TEMPFAIL] LOGIN completed"
        (err: Error) => callback(toImapError(err)),
      );
  };
}
