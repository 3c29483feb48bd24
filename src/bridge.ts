import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config';
import type { Logger } from './log';
import { LoginGuard } from './auth/login-guard';
import { AccountRegistry } from './domain/account-registry';
import { AccountView } from './domain/account-view';
import { composingApi } from './domain/composition-input';
import { MailboxPoller } from './domain/poller';
import { startImapServer } from './imap/server';
import { ImapNotifier } from './imap/notifier';
import { createSmtpServer } from './smtp/server';
import { MailStore } from './store';
import { QuarantineStore } from './store/quarantine';
import { SecretStore, importInitialTokens } from './store/secrets';
import { enforceStatePermissions } from './store/state-permissions';
import { loadOrCreateTls } from './tls';
import { createVendorClient } from './upstream/vendor-client';

export interface RunningBridge {
  ports: { imap: number; imaps: number | null; smtp: number; smtps: number | null };
  accounts: AccountRegistry;
  pollers: MailboxPoller[];
  secrets: SecretStore;
  close(): Promise<void>;
}

/** Starts everything the `start` command runs: state, vendor client, IMAP, SMTP, pollers. */
export async function startBridge(config: Config, logger: Logger): Promise<RunningBridge> {
  fs.mkdirSync(config.stateDir, { recursive: true, mode: 0o700 });
  // what an earlier run or the user left, before anything is read from it
  enforceStatePermissions(config.stateDir);
  const secrets = SecretStore.open(config.stateDir);
  importInitialTokens(config, secrets);
  const vendor = createVendorClient(config, secrets, logger);
  const store = MailStore.open(config.stateDir);
  const tls = await loadOrCreateTls(config.tls, config.stateDir);
  // and what opening the store created under the process umask (database, WAL)
  enforceStatePermissions(config.stateDir);
  const notifier = new ImapNotifier();
  const logins = new LoginGuard({ freeFailures: config.limits.freeLoginFailures }, logger);
  const accounts = new AccountRegistry(secrets);
  const pollers: MailboxPoller[] = [];
  const composition = {
    ...config.messages,
    authservId: config.messages.authservId ?? new URL(config.vendor.readUrl).hostname,
  };
  const mailboxes = new Set([...config.accounts.map((a) => a.mailbox), ...secrets.mailboxes()]);
  for (const mailbox of mailboxes) {
    const view = new AccountView({
      account: mailbox,
      api: composingApi(vendor.mailbox(mailbox), config.assumptions, composition, logger),
      store,
      assumptions: config.assumptions,
      logger,
      attachmentCacheDir: path.join(config.stateDir, 'attachments'),
      publish: (account, folder, changes) => notifier.publish(account, folder, changes),
      labelsRoot: config.labelsFolder,
      copyToFolder: config.copyToFolder,
      freshnessMs: config.freshnessSeconds * 1000,
    });
    accounts.add(view);
    const poller = new MailboxPoller(view, config.pollIntervalSeconds * 1000, config.fullSyncEveryPolls, logger);
    poller.start();
    pollers.push(poller);
  }

  const imap = await startImapServer({
    host: config.listen.host,
    port: config.listen.imapPort,
    securePort: config.listen.imapsPort,
    tls,
    accounts,
    notifier,
    logger,
    maxMessageBytes: config.maxMessageBytes,
    limits: config.limits,
    logins,
  });
  const smtpServer = createSmtpServer({
    config,
    vendor,
    secrets,
    logins,
    quarantine: new QuarantineStore(store.db),
    logger,
    tls,
    onSubmitted: ({ mailbox, messageId }) => accounts.get(mailbox)?.recordSubmission(messageId),
  });
  const smtp = await smtpServer.listen();
  logger.info({ imap: imap.port, smtp: smtp.port, accounts: mailboxes.size }, 'mailbridge started');

  return {
    ports: { imap: imap.port, imaps: imap.securePort, smtp: smtp.port, smtps: smtp.securePort ?? null },
    accounts,
    pollers,
    secrets,
    close: async () => {
      await Promise.all(pollers.map((p) => p.stop()));
      await Promise.all([imap.close(), smtpServer.close()]);
      await vendor.close();
      store.close();
    },
  };
}
