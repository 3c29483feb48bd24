export { MailStore, type FolderState, type MessageRow, type NewMessage, type StoredMetadata, type UidChange } from './mail-store';
export { LocalMessages, isLocalMessage } from './local-messages';
export { openDatabase, schemaVersion, databaseFileName, type Database } from './db';
