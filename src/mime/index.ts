export {
  describeMessage,
  describeRaw,
  describeMailMessage,
  contentTree,
  unconvertibleHeader,
  externalAttachments,
  externalId,
  parseExternalId,
  readableText,
  type AttachmentRef,
  type MessageDescription,
} from './describe';
export { buildMessage } from './compose';
export {
  attachmentsRead,
  createAttachmentStorage,
  AttachmentStorage,
  DiskByteCache,
  MemoryByteCache,
  type AttachmentSource,
  type AttachmentStorageOptions,
  type ByteCache,
} from './attachment-storage';
export {
  createIndexer,
  type ContentSelector,
  type MimeTreeNode,
  type Indexer,
  type ImapAttachmentStorage,
} from './imap-indexer';
export { describeRecord, metadataRecord, type MetadataRecord } from './metadata-record';
export { DescribePool, describePool, type DescribePoolOptions } from './describe-pool';
export {
  compileSummary,
  compiledToken,
  isCompiledItem,
  summaryBytes,
  type SummaryBytes,
} from './compiled-summary';
export type { CompiledSummary } from '../model/mail-rows';
