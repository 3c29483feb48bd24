import nodemailer from 'nodemailer';
import { isLoopback } from '../util/net';

/**
 * Submission on a node that does not serve the mailbox: the message goes on, byte for byte,
 * to the SMTP listener of the node that does, logged in with the client's own credentials, so
 * that every vendor call of a mailbox comes from its owner (one rate limiter per mailbox, one
 * node refreshing its tokens). The owner's answer is the client's answer. To an owner on
 * another machine the hop runs STARTTLS, trusting only the certificate the nodes share.
 */

export interface RelayTarget {
  /** host:port of the owner's SMTP listener. */
  address: string;
  username: string;
  password: string;
}

/** An answer smtp-server passes on as it is. */
const answer = (code: number, text: string) => Object.assign(new Error(text), { responseCode: code });

export async function relayToOwner(
  target: RelayTarget,
  envelope: { from: string; to: string[] },
  raw: Buffer,
  certificate: string,
): Promise<string> {
  const i = target.address.lastIndexOf(':');
  const host = target.address.slice(0, i).replace(/^\[|\]$/g, '');
  const transport = nodemailer.createTransport({
    host,
    port: Number(target.address.slice(i + 1)),
    secure: false,
    ignoreTLS: isLoopback(host),
    requireTLS: !isLoopback(host),
    tls: { ca: certificate, checkServerIdentity: () => undefined },
    auth: { user: target.username, pass: target.password },
  });
  try {
    const info = await transport.sendMail({ envelope, raw });
    return String(info.response).replace(/^250[ -](\d\.\d\.\d+ )?/, '');
  } catch (err) {
    const e = err as Error & { responseCode?: number; response?: string };
    if (e.responseCode && e.response) throw answer(e.responseCode, e.response.replace(/^\d{3}[ -](\d\.\d\.\d+ )?/, ''));
    throw answer(451, 'The node serving this mailbox did not answer; try again');
  } finally {
    transport.close();
  }
}
