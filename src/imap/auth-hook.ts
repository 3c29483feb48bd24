import type { Socket } from 'node:net';
import type { LoginGuard } from '../auth/login-guard';
import type { AccountRegistry } from '../domain/account-registry';
import type { ConnectionGate } from '../listen/connection-gate';
import type { Logger } from '../log';
import { isLoopback } from '../util/net';
import { ImapError, mailboxMoving } from './imap-error';
import { verifyHop } from './node-hop';
import { type NodeHop, proxyToOwner } from './owner-proxy';
import { accountId } from '../model/account-id';
import type { Connection, Login, LoginAnswer } from './engine';

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

const moving = () => new ImapError('UNAVAILABLE', mailboxMoving);

/**
 * LOGIN and AUTHENTICATE: the bridge password, checked under the login throttle; on a node that
 * does not serve the mailbox, a hand-over to the owner; on the owner, a session another node
 * forwarded (node-hop.ts), counted from then on under the client's address.
 */
export function authHook(deps: AuthDependencies) {
  const { accounts, logins, logger, gate, owners } = deps;

  /** A session another node forwarded (its proof checked), or null when it is not one. */
  const forwarded = (login: Login & { authzid: string }, connection: Connection): LoginAnswer | undefined => {
    const client = owners && verifyHop(owners.hop.key, connection.id, login);
    if (!client) return undefined;
    if (!gate.reattribute(connection.id, client))
      throw new ImapError('UNAVAILABLE', `Too many connections from ${client}`);
    const view = accounts.get(login.authzid);
    if (!view) throw moving();
    logger.info(
      { account: view.account, client, node: login.connection?.remoteAddress },
      'imap session forwarded here',
    );
    return { user: { id: view.account, username: view.account } };
  };

  return async (login: Login, connection: Connection): Promise<LoginAnswer> => {
    const peer = login.connection?.remoteAddress ?? '';
    if (login.connection && !login.connection.secure && !isLoopback(peer)) {
      throw new ImapError('PRIVACYREQUIRED', 'Run STARTTLS first: plaintext login is accepted only from this machine');
    }
    const actingAs = login.authzid?.trim();
    const hop = actingAs ? forwarded({ ...login, authzid: actingAs }, connection) : undefined;
    if (hop !== undefined) return hop;
    // set by the login check when another node serves the mailbox (the cast keeps TS from narrowing it to null)
    let forward = null as { address: string; mailbox: string } | 'unavailable' | null;
    const account = await logins.login({ protocol: 'imap', peer, username: login.username }, async () => {
      // acting as another identity is only for nodes (RFC 4616 lets a server refuse it)
      if (actingAs && accountId(actingAs) !== accountId(login.username)) return null;
      const local = await accounts.authenticate(login.username, login.password);
      if (local || !owners) return local;
      forward = await owners.route(login.username, login.password);
      return forward === 'unavailable' ? login.username : (forward?.mailbox ?? null);
    });
    if (!account) return null;
    const target = forward;
    if (target === 'unavailable') throw moving();
    if (!target || !owners) return { user: { id: account, username: account } };
    return {
      handOver: (socket: Socket, tag: string, unread: Buffer) =>
        proxyToOwner(socket, tag, unread, { ...target, client: peer }, owners.hop, logger),
    };
  };
}
