import { section, useServers } from './harness';

/**
 * Vendor labels as keywords (RFC 3501 2.3.2) and as Labels/ folders named in modified UTF-7
 * (5.1.3, 6.3.8 LIST), against Dovecot holding the same label folders and messages.
 */

const servers = useServers();

const parserRefusal =
  'a malformed name or keyword is refused after parsing (COPY: BAD, STORE: NO [CANNOT]); Dovecot answers NO, or BAD for 8-bit bytes in an atom';

section('RFC 3501 6.3.8 LIST, 5.1.3 mailbox names', servers, [
  { name: 'label folders, a non-ASCII one in modified UTF-7', commands: ['LIST "" "Labels/*"', 'LIST "" "Labels/%"'] },
  {
    name: 'a label folder opened by its modified UTF-7 name',
    commands: ['EXAMINE "Labels/&AOk-t&AOk-"', 'FETCH 1:* (UID FLAGS)'],
    differs: 'the untagged FLAGS of SELECT/EXAMINE do not list the keywords in use (engine side of issue 12)',
  },
  {
    name: 'messages of the non-ASCII label folder',
    setup: ['EXAMINE "Labels/&AOk-t&AOk-"'],
    commands: ['FETCH 1:* (UID FLAGS ENVELOPE)'],
  },
  {
    name: 'a malformed modified UTF-7 name names no folder',
    commands: ['EXAMINE "Labels/&Jjo"', 'STATUS "&AGEAYgBj-" (MESSAGES)'],
    differs: 'the bridge adds the RFC 5530 code [NONEXISTENT] to its NO; Dovecot 2.3 answers NO without a code',
  },
]);

section(
  'RFC 3501 2.3.2 keywords',
  servers,
  [
    {
      name: 'labels that are atoms are keywords, others are not',
      commands: ['FETCH 1:* FLAGS', 'SEARCH KEYWORD Later'],
    },
    { name: 'COPY to a malformed name', commands: ['COPY 1 "Labels/&Jjo"'], differs: parserRefusal },
    { name: 'STORE of a keyword with 8-bit bytes', commands: ['STORE 1 +FLAGS (caf\u00e9)'], differs: parserRefusal },
  ],
  ['SELECT INBOX'],
);
