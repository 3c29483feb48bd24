import { section, useServers } from './harness';

/** RFC 3501 6.4.5 FETCH and 7.4.2 FETCH responses. */

const servers = useServers();

const rfc2231Decoded =
  "imap-core decodes RFC 2231 parameters (filename*=UTF-8''...) into one encoded-word value, Dovecot passes them as written";

section(
  'RFC 3501 6.4.5 FETCH: metadata',
  servers,
  [
    { name: 'FLAGS, UID, INTERNALDATE, RFC822.SIZE', commands: ['FETCH 1:* (UID FLAGS INTERNALDATE RFC822.SIZE)'] },
    { name: 'ENVELOPE', commands: ['FETCH 1:* ENVELOPE'] },
    { name: 'BODYSTRUCTURE', commands: ['FETCH 1:7,9:* BODYSTRUCTURE'] },
    { name: 'BODY (non-extensible)', commands: ['FETCH 1:7,9:* BODY'] },
    { name: 'BODY with an RFC 2231 parameter', commands: ['FETCH 8 BODY'], differs: rfc2231Decoded },
    // message 8 of the seeded corpus has a file name in RFC 2231 form (filename*=UTF-8''...)
    { name: 'BODYSTRUCTURE with an RFC 2231 parameter', commands: ['FETCH 8 BODYSTRUCTURE'], differs: rfc2231Decoded },
    { name: 'UID FETCH', commands: ['UID FETCH 2:4 (FLAGS)'] },
  ],
  ['EXAMINE INBOX'],
);

section(
  'RFC 3501 6.4.5 FETCH: drafts the bridge holds',
  servers,
  [
    { name: 'ENVELOPE without Subject is NIL', commands: ['FETCH 1:* ENVELOPE'] },
    { name: 'BODY and BODYSTRUCTURE', commands: ['FETCH 1:* (BODY BODYSTRUCTURE)'] },
    {
      name: 'BODY[] byte-identical, preamble and epilogue included',
      commands: ['FETCH 1:* (RFC822.SIZE BODY.PEEK[])'],
    },
    { name: 'BODY[TEXT] and BODY[HEADER]', commands: ['FETCH 1:* (BODY.PEEK[TEXT] BODY.PEEK[HEADER])'] },
    {
      name: 'BODY[HEADER.FIELDS] without a match is CRLF',
      commands: ['FETCH 1:* (BODY.PEEK[HEADER.FIELDS (X-Nothing)] BODY.PEEK[HEADER.FIELDS (Subject)])'],
    },
    { name: 'BODY[1] and BODY[1.MIME]', commands: ['FETCH 1:* (BODY.PEEK[1] BODY.PEEK[1.MIME])'] },
    { name: 'partial BODY[]<0.20>', commands: ['FETCH 1:* BODY.PEEK[]<0.20>'] },
  ],
  ['EXAMINE Drafts'],
);

section(
  'RFC 3501 6.4.5 FETCH: sections of vendor messages',
  servers,
  [
    { name: 'BODY[] of every message', commands: ['FETCH 1:* BODY.PEEK[]'] },
    { name: 'BODY[HEADER] and BODY[TEXT]', commands: ['FETCH 1:5 (BODY.PEEK[HEADER] BODY.PEEK[TEXT])'] },
    {
      name: 'BODY[HEADER.FIELDS (From Subject)]',
      commands: ['FETCH 1:* BODY.PEEK[HEADER.FIELDS (FROM SUBJECT)]'],
    },
  ],
  ['EXAMINE INBOX'],
);
