import { expect, test } from 'vitest';
import { rawSession } from '../../support/raw-session';
import { section, useServers } from './harness';

/**
 * RFC 5256 SORT and THREAD, on the vendor's messages (INBOX holds replies with References)
 * and on drafts appended to both servers whose subjects, addresses, dates and references
 * exercise the base subject, the sent date and every step of THREAD=REFERENCES.
 */

const servers = useServers();

/** A draft: its header lines (Message-ID first unless `null`) and a one-line body. */
const draft = (id: string | null, headers: string[]) =>
  `${[...(id ? [`Message-ID: <${id}@thread.test>`] : []), ...headers, 'MIME-Version: 1.0', '', `body of ${id}`, ''].join('\r\n')}`;

const refs = (...ids: string[]) => ids.map((id) => `<${id}@thread.test>`).join(' ');

/** [message, INTERNALDATE]: drafts whose order differs by every key. */
const messages: Array<[string, string]> = [
  [
    draft('a', [
      'From: Zed Zimmer <aaa@example.test>',
      'To: Team: bob@example.test, carl@example.test;',
      'Subject: Project plan',
      'Date: Wed, 01 Mar 2023 10:00:00 +0000',
    ]),
    '05-Mar-2023 10:00:00 +0000',
  ],
  [
    draft('b', [
      'From: bob@example.test',
      'To: zoe@example.test',
      'Cc: Carl <carl@example.test>',
      'Subject: Re: Project plan',
      'Date: Wed, 01 Mar 2023 11:00:00 +0000',
      `References: ${refs('a')}`,
    ]),
    '04-Mar-2023 10:00:00 +0000',
  ],
  [
    draft('c', [
      'From: =?UTF-8?Q?=C3=89mile?= <emile@example.test>',
      'To: ann@example.test',
      'Subject: RE: [team] Project plan',
      // earlier than its parent in UTC: siblings are ordered by sent date
      'Date: Wed, 01 Mar 2023 04:30:00 -0500',
      `References: ${refs('a', 'b')}`,
    ]),
    '03-Mar-2023 10:00:00 +0000',
  ],
  [
    draft('d', [
      'From: dora@example.test',
      'Subject: Re: Lost parent',
      'Date: Thu, 02 Mar 2023 10:00:00 +0000',
      `In-Reply-To: ${refs('missing')}`,
    ]),
    '02-Mar-2023 10:00:00 +0000',
  ],
  [
    draft('e', [
      'From: erin@example.test',
      'Subject: Re: Lost parent',
      'Date: Thu, 02 Mar 2023 08:00:00 +0000',
      `In-Reply-To: ${refs('missing')}`,
    ]),
    '01-Mar-2023 10:00:00 +0000',
  ],
  [
    draft('f', ['From: fay@example.test', 'Subject: Fwd: Project plan', 'Date: Fri, 03 Mar 2023 10:00:00 +0000']),
    '06-Mar-2023 10:00:00 +0000',
  ],
  // no Date header: its INTERNALDATE is its sent date
  [draft('g', ['From: gus@example.test', 'Subject: [list] Budget (fwd)']), '28-Feb-2023 10:00:00 +0000'],
  [
    draft('h', ['From: hal@example.test', 'Subject: budget', 'Date: Sat, 04 Mar 2023 10:00:00 +0000']),
    '07-Mar-2023 10:00:00 +0000',
  ],
  // a Message-ID seen before: a message of its own
  [
    draft('a', ['From: ivy@example.test', 'Subject: Project plan', 'Date: Sun, 05 Mar 2023 10:00:00 +0000']),
    '08-Mar-2023 10:00:00 +0000',
  ],
  // references that would make a loop
  [
    draft('j', [
      'From: jon@example.test',
      'Subject: Loop',
      'Date: Mon, 06 Mar 2023 10:00:00 +0000',
      `References: ${refs('k')}`,
    ]),
    '09-Mar-2023 10:00:00 +0000',
  ],
  [
    draft('k', [
      'From: kim@example.test',
      'Subject: Re: Loop',
      'Date: Tue, 07 Mar 2023 10:00:00 +0000',
      `References: ${refs('j')}`,
    ]),
    '10-Mar-2023 10:00:00 +0000',
  ],
  // no Message-ID, Subject or From
  [draft(null, ['Date: Tue, 07 Mar 2023 10:00:00 +0000']), '11-Mar-2023 10:00:00 +0000'],
  [
    draft('m', [
      'From: max@example.test',
      'Subject: =?ISO-8859-1?Q?R=E9union?=',
      'Date: Wed, 08 Mar 2023 10:00:00 +0000',
    ]),
    '12-Mar-2023 10:00:00 +0000',
  ],
  [
    draft('n', ['From: nia@example.test', 'Subject: Re: RÉUNION', 'Date: Wed, 08 Mar 2023 09:00:00 +0000']),
    '12-Mar-2023 10:00:00 +0000',
  ],
];

/** SORT by each key of RFC 5256 alone. */
const everyKey = [
  'SORT (ARRIVAL) UTF-8 ALL',
  'SORT (DATE) UTF-8 ALL',
  'SORT (FROM) UTF-8 ALL',
  'SORT (TO) UTF-8 ALL',
  'SORT (CC) UTF-8 ALL',
  'SORT (SIZE) UTF-8 ALL',
  'SORT (SUBJECT) UTF-8 ALL',
];

section(
  'RFC 5256 SORT: the vendor messages',
  servers,
  [
    {
      name: 'every key',
      commands: everyKey,
    },
    {
      name: 'REVERSE and several keys',
      commands: [
        'SORT (REVERSE ARRIVAL) UTF-8 ALL',
        'SORT (SUBJECT REVERSE DATE) UTF-8 ALL',
        'SORT (REVERSE SUBJECT ARRIVAL) UTF-8 ALL',
        'SORT (FROM SIZE) UTF-8 ALL',
      ],
    },
    {
      name: 'UID SORT with search keys',
      commands: ['UID SORT (DATE) UTF-8 SEEN', 'UID SORT (SUBJECT) US-ASCII SUBJECT re', 'SORT (DATE) UTF-8 UID 3:8'],
    },
    {
      name: 'errors',
      commands: [
        'SORT (NAME) UTF-8 ALL',
        'SORT () UTF-8 ALL',
        'SORT (DATE REVERSE) UTF-8 ALL',
        'SORT (DATE) UTF-8',
        'SORT DATE UTF-8 ALL',
      ],
    },
    {
      name: 'an unknown charset',
      commands: ['SORT (DATE) X-NO-SUCH-CHARSET ALL'],
      differs: 'the bridge lists the charsets it supports in [BADCHARSET (...)]; Dovecot sends a bare [BADCHARSET]',
    },
  ],
  ['EXAMINE INBOX'],
);

section(
  'RFC 5256 SORT: subjects, addresses and dates',
  servers,
  [
    {
      name: 'the messages',
      setup: [],
      commands: messages.map(([message, idate]) => ({ append: 'Drafts', message, flags: `(\\Draft) "${idate}"` })),
    },
    {
      name: 'every key',
      commands: [...everyKey, 'SORT (REVERSE SUBJECT REVERSE DATE) UTF-8 ALL'],
    },
    { name: 'no match', commands: ['SORT (DATE) UTF-8 SUBJECT nothing-like-this', 'UID SORT (DATE) UTF-8 DELETED'] },
    {
      name: 'THREAD=ORDEREDSUBJECT',
      commands: ['THREAD ORDEREDSUBJECT UTF-8 ALL', 'UID THREAD ORDEREDSUBJECT UTF-8 ALL'],
    },
    {
      name: 'THREAD=REFERENCES: dummies, loops, duplicate ids, merging by subject, siblings by date',
      commands: ['THREAD REFERENCES UTF-8 ALL', 'UID THREAD REFERENCES UTF-8 ALL'],
    },
    {
      name: 'THREAD of some messages',
      commands: [
        'THREAD REFERENCES UTF-8 NOT FROM bob',
        'THREAD REFERENCES US-ASCII SUBJECT plan',
        'THREAD ORDEREDSUBJECT UTF-8 SUBJECT budget',
      ],
    },
    {
      name: 'THREAD without a match',
      commands: ['THREAD REFERENCES UTF-8 SUBJECT nothing-like-this'],
      differs:
        'the bridge answers `* THREAD`, as RFC 5256 thread-data says ("THREAD" [SP 1*thread-list]); Dovecot 2.3 adds a space',
    },
    {
      // the bridge keeps its last answers (src/imap/kept-orderings.ts): a new message must change them
      name: 'THREAD and SORT again once a reply arrives',
      commands: [
        'THREAD REFERENCES UTF-8 ALL',
        'SORT (DATE) UTF-8 ALL',
        {
          append: 'Drafts',
          message: draft('o', [
            'From: olga@example.test',
            'Subject: Re: Loop',
            'Date: Tue, 28 Feb 2023 09:00:00 +0000',
            `References: ${refs('j', 'k')}`,
          ]),
          flags: '(\\Draft) "13-Mar-2023 10:00:00 +0000"',
        },
        'NOOP',
        'THREAD REFERENCES UTF-8 ALL',
        'SORT (DATE) UTF-8 ALL',
        'UID SORT (DATE) UTF-8 ALL',
      ],
    },
  ],
  ['EXAMINE Drafts'],
);

section(
  'RFC 5256 THREAD: the vendor messages',
  servers,
  [
    {
      name: 'both algorithms',
      commands: [
        'THREAD ORDEREDSUBJECT UTF-8 ALL',
        'THREAD REFERENCES UTF-8 ALL',
        'UID THREAD REFERENCES UTF-8 ALL',
        'UID THREAD REFERENCES UTF-8 UNSEEN',
      ],
    },
    { name: 'errors', commands: ['THREAD SOMETHING UTF-8 ALL', 'THREAD REFERENCES UTF-8', 'THREAD REFERENCES'] },
  ],
  ['EXAMINE INBOX'],
);

/** What both servers advertise once logged in (capability lists are normalised away in the cases). */
const offered = ['SORT', 'THREAD=ORDEREDSUBJECT', 'THREAD=REFERENCES'];

test(`${offered.join(', ')} advertised, as by Dovecot`, async () => {
  for (const server of [servers.current.bridge, servers.current.dovecot]) {
    const s = await rawSession(server.port, server.user, server.password);
    const capabilities = (await s.run('CAPABILITY')).split(/\s+/);
    s.close();
    expect(offered.filter((c) => !capabilities.includes(c))).toEqual([]);
  }
});
