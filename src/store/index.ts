export { MailStore } from './mail-store';
export type { FolderState, MessageRow, NewMessage, UidChange, MessageSummary } from '../model/mail-rows';
export { LocalMessages, isLocalMessage } from './local-messages';
export type {
  Durability,
  MailState,
  LocalLabel,
  LocalState,
  QuarantineLog,
  TokenVault,
  StateStore,
} from './state-store';
export { openDatabase, schemaVersion, databaseFileName, migrations, type Database } from './db';
export type { TokenPair, StoredAccount } from '../model/tokens';
