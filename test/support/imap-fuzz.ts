import type { Rng } from '../../src/sandbox/rng';

/**
 * Random IMAP commands for the robustness fuzz test: every command imap-core dispatches, with
 * arguments drawn from well-formed, nearly well-formed and hostile pieces. A command is a list
 * of segments: text, or a literal whose bytes go after the server's continuation.
 */

export type Segment = { text: string } | { literal: Buffer; nonSync: boolean };

/** Every command name imap-core's dispatcher knows (lib/imap-command.js), one per handler file at least. */
export const commandNames = [
  'NOOP',
  'CAPABILITY',
  'LOGOUT',
  'ID',
  'STARTTLS',
  'LOGIN',
  'AUTHENTICATE PLAIN',
  'AUTHENTICATE PLAIN-CLIENTTOKEN',
  'NAMESPACE',
  'LIST',
  'XLIST',
  'LSUB',
  'SUBSCRIBE',
  'UNSUBSCRIBE',
  'CREATE',
  'DELETE',
  'RENAME',
  'SELECT',
  'EXAMINE',
  'IDLE',
  'CHECK',
  'STATUS',
  'APPEND',
  'STORE',
  'UID STORE',
  'EXPUNGE',
  'UID EXPUNGE',
  'CLOSE',
  'UNSELECT',
  'COPY',
  'UID COPY',
  'MOVE',
  'UID MOVE',
  'FETCH',
  'UID FETCH',
  'SEARCH',
  'UID SEARCH',
  'SORT',
  'UID SORT',
  'THREAD',
  'UID THREAD',
  'CANCELUPDATE',
  'NOTIFY',
  'ENABLE',
  'GETQUOTAROOT',
  'SETQUOTA',
  'GETQUOTA',
  'COMPRESS',
  'XAPPLEPUSHSERVICE',
] as const;

const mailboxes = [
  'INBOX',
  'inbox',
  'Drafts',
  '"Labels/x"',
  'Archive',
  '""',
  '"&Jjo-"',
  '&Jjo',
  '%',
  '*',
  'NoSuch/Folder',
];
const flags = [
  '\\Seen',
  '\\Flagged',
  '\\Deleted',
  '\\Answered',
  '\\Draft',
  '\\Recent',
  '\\*',
  '$Important',
  'kw1',
  '\\',
];
const fetchItems = [
  'UID',
  'FLAGS',
  'ENVELOPE',
  'BODYSTRUCTURE',
  'BODY',
  'INTERNALDATE',
  'RFC822.SIZE',
  'RFC822.HEADER',
  'RFC822.TEXT',
  'MODSEQ',
  'ALL',
  'FAST',
  'FULL',
  'BODY[]',
  'BODY.PEEK[HEADER]',
  'BODY[TEXT]<0.10>',
  'BODY[1]',
  'BODY[1.2.MIME]',
  'BODY[HEADER.FIELDS (From Subject)]',
  'BODY[HEADER.FIELDS.NOT ()]',
  'BINARY[1]',
  'BODY[<5.0>]',
  'BODY[999]',
];
const searchKeys = [
  'RETURN (MIN MAX COUNT ALL)',
  'RETURN ()',
  '(REVERSE DATE SUBJECT)',
  '(ARRIVAL)',
  'REFERENCES',
  'ORDEREDSUBJECT',
  'RETURN (SAVE)',
  '$',
  'ALL',
  'ANSWERED',
  'BCC',
  'BEFORE',
  'BODY',
  'CC',
  'CHARSET',
  'DELETED',
  'FROM',
  'HEADER',
  'KEYWORD',
  'LARGER',
  'MODSEQ',
  'NEW',
  'NOT',
  'OLD',
  'ON',
  'OR',
  'RECENT',
  'SEEN',
  'SENTBEFORE',
  'SENTON',
  'SENTSINCE',
  'SINCE',
  'SMALLER',
  'SUBJECT',
  'TEXT',
  'TO',
  'UID',
  'UNKEYWORD',
  'UNSEEN',
];
const words = [
  'NIL',
  '()',
  '(',
  ')',
  '[',
  ']',
  '{}',
  '"unterminated',
  '"quoted \\" \\\\ string"',
  'UTF-8',
  'US-ASCII',
  'CONDSTORE',
  'UTF8=ACCEPT',
  'UNCHANGEDSINCE',
  '(UNCHANGEDSINCE 0)',
  '(CHANGEDSINCE 1)',
  'MESSAGES',
  '(MESSAGES UIDNEXT UNSEEN HIGHESTMODSEQ RECENT)',
  '+FLAGS',
  '-FLAGS.SILENT',
  'FLAGS',
  '1-Jan-2020',
  '"31-Feb-99999"',
  '"01-Jan-2020 00:00:00 +0000"',
  'RETURN',
  '(SPECIAL-USE)',
  '(STORAGE 10)',
  'SET',
  'NONE',
  'STATUS',
  '(SELECTED (MessageNew (UID BODY.PEEK[HEADER]) MessageExpunge FlagChange))',
  '(SELECTED-DELAYED NONE)',
  '(PERSONAL (MessageNew MessageExpunge MailboxName SubscriptionChange))',
  '(SUBTREE "Labels" (FlagChange))',
];
const sequences = [
  '1',
  '*',
  '1:*',
  '0',
  '0:*',
  '1,*',
  '*:1',
  '4294967295',
  '4294967296',
  '2:1',
  '1:',
  ':',
  '-1',
  '1,,2',
  '1.5',
];

function randomBytes(rng: Rng, length: number, eightBit: boolean): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    let code = rng.int(eightBit ? 1 : 0x20, eightBit ? 255 : 0x7e);
    if (code === 10 || code === 13) code = 0x20; // a line break would end the command early
    out += String.fromCharCode(code);
  }
  return out;
}

function argument(rng: Rng, depth = 0): Segment[] {
  switch (rng.int(0, 11)) {
    case 0:
      return [{ text: rng.pick(mailboxes) }];
    case 1:
      return [{ text: `(${Array.from({ length: rng.int(0, 3) }, () => rng.pick(flags)).join(' ')})` }];
    case 2:
      return [{ text: rng.chance(0.5) ? rng.pick(fetchItems) : `(${rng.pick(fetchItems)} ${rng.pick(fetchItems)})` }];
    case 3:
      return [{ text: rng.pick(searchKeys) }];
    case 4:
      return [{ text: rng.pick(words) }];
    case 5:
      return [{ text: rng.pick(sequences) }];
    case 6:
      return [{ text: String(rng.int(-2, 2 ** 31)) }];
    case 7:
      return [{ text: randomBytes(rng, rng.int(1, 12), rng.chance(0.3)) }];
    case 8:
      return [{ literal: Buffer.from(randomBytes(rng, rng.int(0, 40), true), 'latin1'), nonSync: rng.chance(0.4) }];
    case 9: {
      if (depth > 2) return [{ text: 'NIL' }];
      const inner = Array.from({ length: rng.int(0, 3) }, () => argument(rng, depth + 1));
      return [{ text: '(' }, ...joinArguments(inner), { text: ')' }];
    }
    case 10:
      return [{ text: `"${randomBytes(rng, rng.int(0, 10), false).replace(/["\\]/g, '')}"` }];
    default:
      return [{ text: `${rng.pick(searchKeys)} ${rng.pick(words)}` }];
  }
}

function joinArguments(args: Segment[][]): Segment[] {
  const out: Segment[] = [];
  args.forEach((arg, i) => {
    if (i > 0) out.push({ text: ' ' });
    out.push(...arg);
  });
  return out;
}

/** One random command (without tag) for `name`: 0 to 5 arguments. */
export function randomCommand(rng: Rng, name: string): Segment[] {
  const args = Array.from({ length: rng.int(0, 5) }, () => argument(rng));
  return [{ text: `${name}${args.length ? ' ' : ''}` }, ...joinArguments(args)];
}
