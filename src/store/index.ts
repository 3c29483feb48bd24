export { MailStore, type FolderState, type MessageRow, type NewMessage, type StoredMetadata, type UidChange } from './mail-store';
export { openDatabase, schemaVersion, databaseFileName, type Database } from './db';
