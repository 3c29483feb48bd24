/** One item of a FETCH as imap-core parses it (`BODY.PEEK[1.MIME]<0.100>`, `FLAGS`, ...). */
export interface FetchQueryItem {
  item: string;
  type?: string;
  path?: string;
  partial?: { startFrom: number; maxLength?: number };
  original?: unknown;
}
