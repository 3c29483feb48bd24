import { MailStore } from './mail-store';
import { QuarantineStore } from './quarantine';
import { SecretStore } from './secrets';
import { soleOwnership } from './sole-ownership';
import type { StateStore } from './state-store';

/** The embedded default: `<stateDir>/mailbridge.db` and `<stateDir>/secrets.json`, one node. */
export function openSqliteState(stateDir: string): StateStore {
  const secrets = SecretStore.open(stateDir);
  const mail = MailStore.open(stateDir);
  return {
    mail,
    ownership: soleOwnership(),
    quarantine: new QuarantineStore(mail.db),
    secrets,
    node: null,
    committed: () => mail.committed(),
    writable: () => Promise.resolve(),
    assertHeld: () => undefined,
    close: async () => mail.close(),
  };
}
