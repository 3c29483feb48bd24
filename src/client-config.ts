import crypto from 'node:crypto';
import plist from 'plist';
import { create } from 'xmlbuilder2';
import type { Config } from './config';
import { accountId } from './model/account-id';
import { certificateForTrustStore } from './tls';

export const clientKinds = ['thunderbird', 'apple', 'outlook', 'generic'] as const;
export type ClientKind = (typeof clientKinds)[number];

/** Where a mail client on this machine reaches the listeners. */
interface Endpoint {
  host: string;
  port: number;
  /** STARTTLS on the plain port, or TLS from the first byte. */
  security: 'STARTTLS' | 'SSL/TLS';
}

export interface ClientServers {
  imap: Endpoint[];
  smtp: Endpoint[];
}

/** The listeners as a client sees them: the listen host (loopback for a wildcard), the implicit-TLS port first. */
export function clientServers(cfg: Pick<Config, 'listen'>): ClientServers {
  const { host, imapPort, imapsPort, smtpPort, smtpsPort } = cfg.listen;
  const reach = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const endpoints = (tls: number | null, plain: number): Endpoint[] => [
    ...(tls === null ? [] : [{ host: reach, port: tls, security: 'SSL/TLS' as const }]),
    { host: reach, port: plain, security: 'STARTTLS' as const },
  ];
  return { imap: endpoints(imapsPort, imapPort), smtp: endpoints(smtpsPort, smtpPort) };
}

/** The settings to type into any client, one line each; the password line when it is known. */
export function settingsLines(servers: ClientServers, mailbox: string, password?: string): string[] {
  const line = (label: string, protocol: string, e: Endpoint) =>
    `  ${label}  ${protocol}  server ${e.host}  port ${e.port}  security ${e.security}  authentication normal password`;
  return [
    ...servers.imap.map((e) => line('Incoming', 'IMAP', e)),
    ...servers.smtp.map((e) => line('Outgoing', 'SMTP', e)),
    `  Username  ${mailbox}`,
    `  Password  ${password ?? 'the bridge password (setup printed it; "mailbridge account password" makes a new one)'}`,
  ];
}

/**
 * Thunderbird's autoconfig document (clientConfig 1.1), as Thunderbird fetches it from
 * /mail/config-v1.1.xml or /.well-known/autoconfig/mail/config-v1.1.xml. %EMAILADDRESS% is
 * Thunderbird's placeholder for the address the user typed.
 */
export function thunderbirdAutoconfig(servers: ClientServers, domains: string[]): string {
  const doc = create({ version: '1.0', encoding: 'UTF-8' }).ele('clientConfig', { version: '1.1' });
  const provider = doc.ele('emailProvider', { id: 'mailbridge.localhost' });
  for (const d of domains) provider.ele('domain').txt(d);
  provider.ele('displayName').txt('mailbridge (local bridge)');
  provider.ele('displayShortName').txt('mailbridge');
  const server = (tag: string, type: string, e: Endpoint) => {
    const s = provider.ele(tag, { type });
    s.ele('hostname').txt(e.host);
    s.ele('port').txt(String(e.port));
    s.ele('socketType').txt(e.security === 'SSL/TLS' ? 'SSL' : 'STARTTLS');
    s.ele('authentication').txt('password-cleartext');
    s.ele('username').txt('%EMAILADDRESS%');
  };
  for (const e of servers.imap) server('incomingServer', 'imap', e);
  for (const e of servers.smtp) server('outgoingServer', 'smtp', e);
  return doc.end({ prettyPrint: true });
}

/** A stable UUID from a name: installing the profile again replaces the earlier one instead of adding another. */
function uuidFor(name: string): string {
  const h = crypto.createHash('sha256').update(name).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`.toUpperCase();
}

/**
 * An Apple configuration profile (.mobileconfig) for macOS and iOS: the bridge's certificate
 * as a trusted root (it is self-signed), and the mail account with both servers. The
 * implicit-TLS ports are used when they are on: Apple's profile has only an on/off switch for
 * TLS. No password is in it: Mail asks for it when the profile is installed.
 */
export function appleProfile(servers: ClientServers, mailbox: string, certPem: string): string {
  const id = `localhost.mailbridge.${accountId(mailbox)}`;
  const [imap] = servers.imap;
  const [smtp] = servers.smtp;
  const profile = {
    PayloadType: 'Configuration',
    PayloadVersion: 1,
    PayloadIdentifier: id,
    PayloadUUID: uuidFor(id),
    PayloadDisplayName: `mailbridge: ${mailbox}`,
    PayloadDescription: 'The local mail bridge: its certificate and the mail account',
    PayloadContent: [
      {
        PayloadType: 'com.apple.security.root',
        PayloadVersion: 1,
        PayloadIdentifier: `${id}.certificate`,
        PayloadUUID: uuidFor(`${id}.certificate`),
        PayloadDisplayName: 'mailbridge certificate',
        PayloadCertificateFileName: 'mailbridge.cer',
        PayloadContent: certificateForTrustStore(certPem, 'der').data,
      },
      {
        PayloadType: 'com.apple.mail.managed',
        PayloadVersion: 1,
        PayloadIdentifier: `${id}.account`,
        PayloadUUID: uuidFor(`${id}.account`),
        PayloadDisplayName: `mailbridge: ${mailbox}`,
        EmailAccountDescription: `${mailbox} (mailbridge)`,
        EmailAccountType: 'EmailTypeIMAP',
        EmailAddress: mailbox,
        IncomingMailServerHostName: imap.host,
        IncomingMailServerPortNumber: imap.port,
        IncomingMailServerUseSSL: imap.security === 'SSL/TLS',
        IncomingMailServerAuthentication: 'EmailAuthPassword',
        IncomingMailServerUsername: mailbox,
        OutgoingMailServerHostName: smtp.host,
        OutgoingMailServerPortNumber: smtp.port,
        OutgoingMailServerUseSSL: smtp.security === 'SSL/TLS',
        OutgoingMailServerAuthentication: 'EmailAuthPassword',
        OutgoingMailServerUsername: mailbox,
        OutgoingPasswordSameAsIncomingPassword: true,
      },
    ],
  };
  return plist.build(profile as unknown as plist.PlistValue);
}

/** Step by step for Outlook (Windows "new" and classic, and Mac), which reads no autoconfig from a bridge. */
export function outlookSteps(servers: ClientServers, mailbox: string): string[] {
  const [imap] = servers.imap;
  const [smtp] = servers.smtp;
  const encryption = (e: Endpoint) => (e.security === 'SSL/TLS' ? 'SSL/TLS' : 'STARTTLS');
  return [
    `Outlook for ${mailbox}:`,
    '1. Trust the bridge certificate first (Outlook refuses self-signed ones without saying so):',
    '   mailbridge cert export --der -o mailbridge.cer, double-click it, Install Certificate, Current User,',
    '   "Place all certificates in the following store": Trusted Root Certification Authorities.',
    `2. File > Add account, type ${mailbox}, Advanced options: "Let me set up my account manually", choose IMAP.`,
    `3. Incoming mail: server ${imap.host}, port ${imap.port}, encryption method ${encryption(imap)}.`,
    `4. Outgoing mail: server ${smtp.host}, port ${smtp.port}, encryption method ${encryption(smtp)}.`,
    `5. User name ${mailbox}; password: the bridge password (not the vendor's), then Connect.`,
    '   Outgoing authentication: "My outgoing (SMTP) server requires authentication", same as incoming.',
  ];
}

/** The domains of the configured mailboxes, for the autoconfig document. */
export function accountDomains(mailboxes: string[]): string[] {
  return [...new Set(mailboxes.map((m) => m.slice(m.lastIndexOf('@') + 1).toLowerCase()))];
}
