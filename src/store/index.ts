export {
  MailStore,
  type FolderState,
  type MessageRow,
  type NewMessage,
  type UidChange,
  type MessageSummary,
} from './mail-store';
export { LocalMessages, isLocalMessage } from './local-messages';
export type {
  Durability,
  MailState,
  LocalState,
  QuarantineLog,
  TokenPair,
  TokenVault,
  StateStore,
} from './state-store';
export { openDatabase, schemaVersion, databaseFileName, migrations, type Database } from './db';
