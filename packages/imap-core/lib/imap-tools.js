'use strict';

const Indexer = require('./indexer/indexer');
const libmime = require('libmime');
const punycode = require('punycode.js');
const iconv = require('iconv-lite');
const { objectIdValue } = require('./object-ids');

module.exports.systemFlagsFormatted = ['\\Answered', '\\Flagged', '\\Draft', '\\Deleted', '\\Seen'];
module.exports.systemFlags = ['\\answered', '\\flagged', '\\draft', '\\deleted', '\\seen'];

/** A flag as STORE and APPEND list it: the parser reads the atom NIL as null, and as a flag it is the keyword NIL. */
module.exports.flagName = flag => (flag === null ? 'NIL' : ((flag && flag.value) || '').toString());

// mailbridge (change 123): printable ASCII other than "&" stands for itself in modified UTF-7
// (RFC 3501 5.1.3), so such a name, as nearly every name is, needs no codec: SELECT, STATUS and
// each line of LIST convert names, a codec call and Buffers each time otherwise
const PLAIN_NAME = /^[\x20-\x25\x27-\x7e]*$/;
const utf7encode = str => (PLAIN_NAME.test(str) ? str : iconv.encode(str, 'utf-7-imap').toString());
const utf7decode = str => (PLAIN_NAME.test(str) ? str : iconv.decode(Buffer.from(str), 'utf-7-imap').toString());

module.exports.utf7encode = utf7encode;
module.exports.utf7decode = utf7decode;

module.exports.fetchSchema = {
    body: [
        true,
        {
            type: /^(\d+\.)*(CONTENT|HEADER|HEADER\.FIELDS|HEADER\.FIELDS\.NOT|TEXT|MIME|\d+)$/i,
            headers: /^(\d+\.)*(HEADER\.FIELDS|HEADER\.FIELDS\.NOT)$/i,
            startFrom: 'optional',
            maxLength: 'optional'
        }
    ],
    bodystructure: true,
    envelope: true,
    flags: true,
    internaldate: true,
    rfc822: true,
    'rfc822.header': true,
    'rfc822.size': true,
    'rfc822.text': true,
    modseq: true,
    uid: true,
    emailid: true,
    threadid: true,
    // BINARY[part]<partial>, BINARY.SIZE[part] (RFC 3516): a part number, or the whole message
    binary: { type: 'content', startFrom: 'optional', maxLength: 'optional' },
    'binary.size': { type: 'content' }
};

module.exports.searchSchema = {
    charset: ['string'],
    all: true,
    answered: true,
    bcc: ['string'],
    before: ['date'],
    body: ['string'],
    cc: ['string'],
    deleted: true,
    draft: true,
    flagged: true,
    from: ['string'],
    header: ['string', 'string'],
    keyword: ['string'],
    larger: ['number'],
    modseq: [['string', 'string', 'number'], ['number']],
    new: true,
    not: ['expression'],
    old: true,
    older: ['number'],
    on: ['date'],
    or: ['expression', 'expression'],
    recent: true,
    seen: true,
    sentbefore: ['date'],
    senton: ['date'],
    sentsince: ['date'],
    since: ['date'],
    smaller: ['number'],
    subject: ['string'],
    text: ['string'],
    to: ['string'],
    uid: ['sequence'],
    unanswered: true,
    undeleted: true,
    undraft: true,
    unflagged: true,
    unkeyword: ['string'],
    unseen: true,
    younger: ['number'],
    emailid: ['string'],
    threadid: ['string']
};

module.exports.searchMapping = {
    all: {
        key: 'all',
        value: [true]
    },
    answered: {
        key: 'flag',
        value: ['\\Answered', true]
    },
    bcc: {
        key: 'header',
        value: ['bcc', '$1']
    },
    before: {
        key: 'internaldate',
        value: ['<', '$1']
    },
    cc: {
        key: 'header',
        value: ['cc', '$1']
    },
    deleted: {
        key: 'flag',
        value: ['\\Deleted', true]
    },
    draft: {
        key: 'flag',
        value: ['\\Draft', true]
    },
    flagged: {
        key: 'flag',
        value: ['\\Flagged', true]
    },
    from: {
        key: 'header',
        value: ['from', '$1']
    },
    keyword: {
        key: 'flag',
        value: ['$1', true]
    },
    larger: {
        key: 'size',
        value: ['>', '$1']
    },
    new: {
        key: 'flag',
        value: ['\\Recent', true, '\\Seen', false]
    },
    old: {
        key: 'flag',
        value: ['\\Recent', false]
    },
    on: {
        key: 'internaldate',
        value: ['=', '$1']
    },
    recent: {
        key: 'flag',
        value: ['\\Recent', true]
    },
    seen: {
        key: 'flag',
        value: ['\\Seen', true]
    },
    sentbefore: {
        key: 'date',
        value: ['<', '$1']
    },
    senton: {
        key: 'date',
        value: ['=', '$1']
    },
    sentsince: {
        key: 'date',
        value: ['>=', '$1']
    },
    since: {
        key: 'internaldate',
        value: ['>=', '$1']
    },
    smaller: {
        key: 'size',
        value: ['<', '$1']
    },
    subject: {
        key: 'header',
        value: ['subject', '$1']
    },
    to: {
        key: 'header',
        value: ['to', '$1']
    },
    unanswered: {
        key: 'flag',
        value: ['\\Answered', false]
    },
    undeleted: {
        key: 'flag',
        value: ['\\Deleted', false]
    },
    undraft: {
        key: 'flag',
        value: ['\\Draft', false]
    },
    unflagged: {
        key: 'flag',
        value: ['\\Flagged', false]
    },
    unkeyword: {
        key: 'flag',
        value: ['$1', false]
    },
    unseen: {
        key: 'flag',
        value: ['\\Seen', false]
    }
};

/**
 * Checks if a sequence range string is valid or not
 *
 * @param {range} range Sequence range, eg "1,2,3:7"
 * @returns {Boolean} True if the string looks like a sequence range
 */
/**
 * The tagged answer for an error a hook passed to its callback. A hook that knows what went
 * wrong sets `err.imapResponse = { response: 'NO' | 'BAD', code, message }`, for example
 * `{ response: 'NO', code: 'CANNOT', message: 'Folders cannot be created here' }` (RFC 5530
 * codes); any other error keeps its details private and gets `fallback`.
 *
 * @param {Error} err Error from a hook
 * @param {Object} fallback Answer for errors without `imapResponse`
 * @returns {Object} Response object for the command callback
 */
module.exports.hookErrorResponse = function (err, fallback) {
    let custom = err && err.imapResponse;
    if (!custom || typeof custom !== 'object' || !['NO', 'BAD'].includes(custom.response)) {
        return fallback;
    }
    let code = typeof custom.code === 'string' && /^[A-Z0-9-]+$/i.test(custom.code) ? custom.code.toUpperCase() : false;
    if (code && typeof custom.argument === 'string') {
        // a code with text after it, such as RFC 4469's `BADURL url`: any text but `]`, which
        // would end the code (a URL keeps its meaning with it percent-encoded), and line breaks
        code += ' ' + custom.argument.replace(/[\r\n\0]+/g, ' ').replace(/\]/g, '%5D');
    }
    let message = typeof custom.message === 'string' ? custom.message.replace(/[\r\n]+/g, ' ') : false;
    return {
        response: custom.response,
        code,
        message
    };
};

/**
 * The untagged FLAGS and OK [PERMANENTFLAGS] responses announcing a folder's flags
 *
 * @param {Array} flagList Flags and keywords of the folder
 * @returns {Array} Two response objects for the compiler
 */
module.exports.flagsResponses = function (flagList) {
    let atoms = flagList.map(flag => ({
        type: 'atom',
        value: flag
    }));
    return [
        {
            tag: '*',
            command: 'FLAGS',
            attributes: [atoms]
        },
        {
            tag: '*',
            command: 'OK',
            attributes: [
                {
                    type: 'section',
                    section: [
                        {
                            type: 'atom',
                            value: 'PERMANENTFLAGS'
                        },
                        atoms.concat({
                            type: 'text',
                            value: '\\*'
                        })
                    ]
                },
                {
                    type: 'text',
                    value: 'Flags permitted'
                }
            ]
        }
    ];
};

module.exports.validateSequence = function (range, savedAllowed) {
    // "$": the saved search result (RFC 5182), where the command's caller resolves it
    if (savedAllowed && range === '$') {
        return true;
    }
    // sequence numbers and UIDs start at 1 (RFC 3501 seq-number is nz-number / "*")
    return !!(range.length && /^([1-9]\d*|\*)(:[1-9]\d*|:\*)?(,([1-9]\d*|\*)(:[1-9]\d*|:\*)?)*$/.test(range));
};

/**
 * Whether a mailbox name as the client sent it is well-formed: modified UTF-7 in its one
 * canonical form (RFC 3501 5.1.3: "&" shifts only to encode non-ASCII, every shift ends with
 * "-", no 8-bit bytes), or, after ENABLE UTF8=ACCEPT, valid UTF-8 (the caller decoded it, so
 * a malformed sequence shows as U+FFFD).
 *
 * @param {String} mailbox Mailbox name as sent
 * @param {Boolean} utf7Encoded If true, the name is modified UTF-7
 * @returns {Boolean}
 */
const isValidMailboxName = (mailbox, utf7Encoded) => {
    if (!utf7Encoded) {
        return !mailbox.includes('\ufffd');
    }
    return /^[\x20-\x7e]*$/.test(mailbox) && mailbox.split('/').every(part => utf7encode(utf7decode(part)) === part);
};

module.exports.isValidMailboxName = isValidMailboxName;

module.exports.normalizeMailbox = function (mailbox, utf7Encoded) {
    if (!mailbox) {
        return '';
    }

    if (!isValidMailboxName(mailbox, utf7Encoded)) {
        // an invalid name names no mailbox: commands answer as for a missing argument
        return '';
    }

    // trim slashes
    mailbox = mailbox.replace(/^\/|\/$/g, () => '');

    // Normalize case insensitive INBOX to always use uppercase
    let parts = mailbox.split('/');
    if (parts[0].toUpperCase() === 'INBOX') {
        parts[0] = 'INBOX';
    }

    if (utf7Encoded) {
        parts = parts.map(value => utf7decode(value));
    }

    mailbox = parts.join('/');

    return mailbox;
};

module.exports.generateFolderListing = function (folders, skipHierarchy) {
    let items = new Map();
    let parents = [];

    folders.forEach(folder => {
        let item;

        if (typeof folder === 'string') {
            folder = {
                path: folder
            };
        }

        if (!folder || typeof folder !== 'object') {
            return;
        }

        let path = module.exports.normalizeMailbox(folder.path);
        let parent, parentPath;
        if (!path) {
            return;
        }
        parent = path.split('/');
        parent.pop();

        while (parent.length) {
            parentPath = parent.join('/');
            if (parent && parents.indexOf(parentPath) < 0) {
                parents.push(parentPath);
            }
            parent.pop();
        }

        item = {
            // flags array is used to store permanentflags
            //flags: [].concat(folder.flags || []),

            flags: [],
            path
        };

        if (typeof folder.specialUse === 'string' && folder.specialUse) {
            item.specialUse = folder.specialUse;
        }

        items.set(path, item);
    });

    // ensure INBOX
    if (!items.has('INBOX')) {
        items.set('INBOX', {
            path: 'INBOX',
            flags: []
        });
    }

    // Adds \HasChildren flag for parent folders
    parents.forEach(path => {
        if (!items.has(path) && !skipHierarchy) {
            // add virtual hierarchy folders
            items.set(path, {
                flags: ['\\Noselect'],
                path
            });
        }
        let parent = items.get(path);

        if (parent && parent.flags.indexOf('\\HasChildren') < 0) {
            parent.flags.push('\\HasChildren');
        }
    });

    // converts cache Map to a response array
    let result = [];
    items.forEach(folder => {
        // Adds \HasNoChildren flag for leaf folders
        if (folder.flags.indexOf('\\HasChildren') < 0 && folder.flags.indexOf('\\HasNoChildren') < 0) {
            folder.flags.push('\\HasNoChildren');
        }
        result.push(folder);
    });

    // sorts folders
    result.sort((a, b) => {
        let aParts = a.path.split('/');
        let bParts = b.path.split('/');
        for (let i = 0; i < aParts.length; i++) {
            if (!bParts[i]) {
                return 1;
            }
            if (aParts[i] !== bParts[i]) {
                // prefer INBOX when sorting
                if (i === 0 && aParts[i] === 'INBOX') {
                    return -1;
                } else if (i === 0 && bParts[i] === 'INBOX') {
                    return 1;
                }
                return aParts[i].localeCompare(bParts[i]);
            }
        }
        return 0;
    });

    return result;
};

module.exports.filterFolders = function (folders, query) {
    query = query
        // remove excess * and %
        .replace(/\*\*+/g, '*')
        .replace(/%%+/g, '%')
        // escape special characters
        .replace(/[\\^$+?!.():=[\]{}|,-]/g, '\\$&')
        // setup *
        .replace(/[*]/g, '.*')
        // setup %
        .replace(/[%]/g, '[^/]*');

    let regex;
    try {
        regex = new RegExp('^' + query + '$', '');
    } catch (err) {
        return [];
    }

    return folders.filter(folder => !!regex.test(folder.path));
};

module.exports.getMessageRange = function (uidList, range, isUid, saved) {
    range = (range || '').toString();

    if (range === '$') {
        // the saved search result's UIDs (RFC 5182), with or without UID, less those expunged since
        let present = new Set(uidList);
        return (saved || []).filter(uid => present.has(uid));
    }

    if (!range || uidList.length === 0) {
        return [];
    }

    const rangeParts = range.split(',');
    const totalMessages = uidList.length;

    let maxUid = 0;
    for (let i = 0; i < uidList.length; i++) {
        if (uidList[i] > maxUid) {
            maxUid = uidList[i];
        }
    }

    const maxValue = isUid ? maxUid : totalMessages;

    const parsedRanges = [];
    for (let i = 0; i < rangeParts.length; i++) {
        const part = rangeParts[i];
        const colonIndex = part.indexOf(':');
        let from, to;

        if (colonIndex === -1) {
            // single number
            from = part === '*' ? maxValue : Number(part) || 1;
            to = from;
        } else {
            // range
            const fromStr = part.substring(0, colonIndex);
            const toStr = part.substring(colonIndex + 1);
            from = fromStr === '*' ? maxValue : Number(fromStr) || 1;
            to = toStr === '*' ? maxValue : Number(toStr) || from;
        }

        parsedRanges.push([Math.min(from, to), Math.max(from, to)]);
    }

    // sort and merge overlapping ranges
    parsedRanges.sort((a, b) => a[0] - b[0]);
    const mergedRanges = [];
    for (let i = 0; i < parsedRanges.length; i++) {
        const current = parsedRanges[i];
        if (mergedRanges.length === 0 || mergedRanges[mergedRanges.length - 1][1] < current[0] - 1) {
            mergedRanges.push(current);
        } else {
            mergedRanges[mergedRanges.length - 1][1] = Math.max(mergedRanges[mergedRanges.length - 1][1], current[1]);
        }
    }

    // for sequence numbers, use direct indexing
    if (!isUid) {
        const result = [];
        for (let i = 0; i < mergedRanges.length; i++) {
            const [min, max] = mergedRanges[i];
            for (let seq = min; seq <= max && seq <= totalMessages; seq++) {
                if (seq >= 1) {
                    result.push(uidList[seq - 1]);
                }
            }
        }
        return result;
    }

    // two pointer approach
    const result = [];
    let rangeIndex = 0;
    let currentRange = mergedRanges[0];

    for (let i = 0; i < uidList.length; i++) {
        const uid = uidList[i];

        // move to next range if current UID is past current range
        while (currentRange && uid > currentRange[1]) {
            rangeIndex++;
            currentRange = mergedRanges[rangeIndex];
        }

        if (!currentRange) break;

        // check if UID is in current range
        if (uid >= currentRange[0] && uid <= currentRange[1]) {
            result.push(uid);
        }
    }

    return result;
};

/** Numbers as a sequence set, ascending runs as ranges ("2,10:11", "5,1:2"), in one walk. */
module.exports.sequenceSet = function (numbers) {
    let parts = [];
    for (let i = 0; i < numbers.length; i++) {
        let start = numbers[i];
        while (i + 1 < numbers.length && numbers[i + 1] === numbers[i] + 1) {
            i++;
        }
        parts.push(start === numbers[i] ? String(start) : start + ':' + numbers[i]);
    }
    return parts.join(',');
};

module.exports.packMessageRange = function (uidList) {
    if (!Array.isArray(uidList)) {
        uidList = [].concat(uidList || []);
    }

    if (!uidList.length) {
        return '';
    }

    uidList.sort((a, b) => a - b);

    let last = uidList[uidList.length - 1];
    let result = [[last]];
    for (let i = uidList.length - 2; i >= 0; i--) {
        if (uidList[i] === uidList[i + 1] - 1) {
            result[0].unshift(uidList[i]);
            continue;
        }
        result.unshift([uidList[i]]);
    }

    result = result.map(item => {
        if (item.length === 1) {
            return item[0];
        }
        return item.shift() + ':' + item.pop();
    });

    return result.join(',');
};

/**
 * Returns a date in GMT timezone
 *
 * @param {Date} date Date object to parse
 * @returns {String} Internaldate formatted date
 */
module.exports.formatInternalDate = function (date) {
    let day = date.getUTCDate(),
        month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][date.getUTCMonth()],
        year = date.getUTCFullYear(),
        hour = date.getUTCHours(),
        minute = date.getUTCMinutes(),
        second = date.getUTCSeconds(),
        tz = 0, //date.getTimezoneOffset(),
        tzHours = Math.abs(Math.floor(tz / 60)),
        tzMins = Math.abs(tz) - tzHours * 60;

    return (
        (day < 10 ? '0' : '') +
        day +
        '-' +
        month +
        '-' +
        year +
        ' ' +
        (hour < 10 ? '0' : '') +
        hour +
        ':' +
        (minute < 10 ? '0' : '') +
        minute +
        ':' +
        (second < 10 ? '0' : '') +
        second +
        ' ' +
        (tz > 0 ? '-' : '+') +
        (tzHours < 10 ? '0' : '') +
        tzHours +
        (tzMins < 10 ? '0' : '') +
        tzMins
    );
};

/**
 * Converts query data and message into an array of query responses.
 *
 * Message object must have the following properties:
 *
 *   * raw – string (binary) or buffer with the rfc822 contents of the message
 *   * uid – message UID
 *   * flags - an array with message flags
 *   * date - internaldate date object
 *
 * Additionally the message object *should* have the following  properties (if not present then generated automatically):
 *
 *   * mimeTree - message MIME tree object
 *   * envelope - message IMAP envelope object
 *   * bodystructure - message bodustructure object
 *   * bodystructureShort - bodyscructure for the BODY query
 *
 * @param {Array} query Query objects
 * @param {Object} message Message object
 * @param {Object} options Options for the indexer
 * @returns {Array} Resolved responses
 */
/**
 * Encodes the strings of a BODY or BODYSTRUCTURE value (Buffers) as MIME encoded-words, in
 * place, for sessions that have not enabled UTF8=ACCEPT.
 */
function encodeStructureStrings(arr) {
    arr.forEach((entry, i) => {
        if (Array.isArray(entry)) {
            return encodeStructureStrings(entry);
        }
        if (!entry || typeof entry !== 'object') {
            return;
        }
        let val = entry;
        if (!Buffer.isBuffer(val) && val.buffer) {
            val = val.buffer;
        }
        arr[i] = libmime.encodeWords(val.toString(), false, Infinity);
    });
}

module.exports.getQueryResponse = function (query, message, options) {
    options = options || {};

    // for optimization purposes try to use cached mimeTree etc. if available
    // If these values are missing then generate these when first time required
    // So if the query is for (UID FLAGS) then mimeTree is never generated
    let mimeTree = message.mimeTree;
    let indexer = new Indexer(options);

    // generate response object
    let values = [];
    query.forEach(item => {
        let value = '';
        switch (item.item) {
            case 'uid':
                value = message.uid;
                break;

            case 'modseq':
                value = message.modseq;
                break;

            case 'binary':
            case 'binary.size': {
                // the decoded content, which the onFetch hook reads (RFC 3516; lib/binary.js)
                let content = message.binary && message.binary[item.path];
                if (!Buffer.isBuffer(content)) {
                    throw new Error('No BINARY content of section ' + item.path);
                }
                if (item.item === 'binary.size') {
                    value = content.length;
                    break;
                }
                let start = (item.partial && item.partial.startFrom) || 0;
                let end = item.partial && item.partial.maxLength ? start + item.partial.maxLength : content.length;
                // a part that is not 7-bit text goes as a literal8, whatever window of it is asked
                // for (RFC 3516 4.3 requires it for NUL; Dovecot does it for any 8-bit byte)
                value = { type: 'binary', value: content.subarray(start, end), literal8: content.some(byte => byte === 0 || byte > 0x7f) };
                break;
            }

            case 'emailid':
            case 'threadid':
                // RFC 8474 5.1, 5.2: (objectid), or NIL for a message of no thread
                value = objectIdValue(item.item === 'emailid' ? message.emailId : message.threadId);
                break;

            case 'flags':
                value = message.flags;
                break;

            case 'internaldate':
                if (!message.idate) {
                    message.idate = new Date();
                }
                value = message.idate;
                break;

            case 'bodystructure': {
                if (message.bodystructure) {
                    value = message.bodystructure;
                } else {
                    if (!mimeTree) {
                        mimeTree = indexer.parseMimeTree(message.raw);
                    }
                    value = indexer.getBodyStructure(mimeTree);
                }

                if (!options.acceptUTF8Enabled) {
                    encodeStructureStrings(value);
                }

                break;
            }
            case 'envelope':
                if (message.envelope) {
                    value = message.envelope;
                    // cast invalidly stored In-Reply-To (8) and Message-ID (9) to strings
                    for (let index of [9, 10]) {
                        if (value[index] && Array.isArray(value[index])) {
                            value[index] = value[index].pop() || null;
                        }
                    }
                } else {
                    if (!mimeTree) {
                        mimeTree = indexer.parseMimeTree(message.raw);
                    }
                    value = indexer.getEnvelope(mimeTree);
                }
                if (!options.acceptUTF8Enabled) {
                    // encode unicode values

                    // subject
                    if (value[1] !== null) {
                        value[1] = libmime.encodeWords(value[1], false, Infinity);
                    }

                    for (let i = 2; i < 8; i++) {
                        if (value[i] && Array.isArray(value[i])) {
                            value[i].forEach(addr => {
                                if (addr[0] && typeof addr[0] === 'object') {
                                    // name
                                    let val = addr[0];
                                    if (!Buffer.isBuffer(val) && val.buffer) {
                                        val = val.buffer;
                                    }
                                    addr[0] = libmime.encodeWords(val.toString(), false, Infinity);
                                }

                                if (addr[2] && typeof addr[2] === 'object') {
                                    // username
                                    let val = addr[2];
                                    if (!Buffer.isBuffer(val) && val.buffer) {
                                        val = val.buffer;
                                    }
                                    addr[2] = libmime.encodeWords(val.toString(), false, Infinity);
                                }

                                if (addr[3] && typeof addr[3] === 'object') {
                                    // domain
                                    let val = addr[3];
                                    if (!Buffer.isBuffer(val) && val.buffer) {
                                        val = val.buffer;
                                    }
                                    try {
                                        addr[3] = punycode.toASCII(val.toString());
                                    } catch (E) {
                                        addr[3] = val.toString();
                                    }
                                }
                            });
                        }
                    }

                    // libmime.encodeWords(value, false, Infinity)
                }
                break;

            case 'rfc822':
                if (!mimeTree) {
                    mimeTree = indexer.parseMimeTree(message.raw);
                }
                value = indexer.getContents(mimeTree);
                break;

            case 'rfc822.size':
                if (message.size) {
                    value = message.size;
                } else {
                    if (!mimeTree) {
                        mimeTree = indexer.parseMimeTree(message.raw);
                    }
                    value = indexer.getSize(mimeTree);
                }
                break;

            case 'rfc822.header':
                // Equivalent to BODY[HEADER]
                if (!mimeTree) {
                    mimeTree = indexer.parseMimeTree(message.raw);
                }
                value = [].concat(mimeTree.header || []).join('\r\n') + '\r\n\r\n';
                break;

            case 'rfc822.text':
                // Equivalent to BODY[TEXT]
                if (!mimeTree) {
                    mimeTree = indexer.parseMimeTree(message.raw);
                }
                value = indexer.getContents(mimeTree, {
                    path: '',
                    type: 'text'
                });
                break;

            case 'body':
                if (!item.hasOwnProperty('type')) {
                    // BODY
                    if (!mimeTree) {
                        mimeTree = indexer.parseMimeTree(message.raw);
                    }
                    value = indexer.getBody(mimeTree);
                    if (!options.acceptUTF8Enabled) {
                        // the same strings as in BODYSTRUCTURE: 8-bit only after ENABLE UTF8=ACCEPT
                        encodeStructureStrings(value);
                    }
                } else if (item.path === '' && item.type === 'content') {
                    // BODY[]
                    if (!mimeTree) {
                        mimeTree = indexer.parseMimeTree(message.raw);
                    }
                    value = indexer.getContents(mimeTree, false, {
                        startFrom: item.partial && item.partial.startFrom,
                        maxLength: item.partial && item.partial.maxLength
                    });
                } else {
                    // BODY[SELECTOR]
                    if (!mimeTree) {
                        mimeTree = indexer.parseMimeTree(message.raw);
                    }
                    value = indexer.getContents(mimeTree, item, {
                        startFrom: item.partial && item.partial.startFrom,
                        maxLength: item.partial && item.partial.maxLength
                    });
                }

                if (item.partial) {
                    let len;

                    if (value && value.type === 'stream') {
                        value.startFrom = item.partial.startFrom;
                        value.maxLength = item.partial.maxLength;
                        len = value.expectedLength;
                    } else {
                        value = value.toString('binary').substr(item.partial.startFrom, item.partial.maxLength);
                        len = value.length;
                    }

                    // If start+length is larger than available value length, then do not return the length value
                    // Instead of BODY[]<10.20> return BODY[]<10> which means that the response is from offset 10 to the end
                    if (item.original.partial.length === 2 && item.partial.maxLength - item.partial.startFrom > len) {
                        item.original.partial.pop();
                    }
                }

                break;
        }
        values.push(value);
    });

    return values;
};

/**
 * Builds and emits an untagged CAPABILITY response depending on current state
 *
 * @param {Object} connection IMAP connection object
 */
const extensionCapabilities = ['BINARY', 'LIST-EXTENDED', 'LIST-STATUS', 'OBJECTID', 'QRESYNC', 'STATUS=SIZE'];

// mailbridge (change 130): `enableCompression` is true, false, or a function of the connection
// (a host offers COMPRESS=DEFLATE where compressing pays, e.g. not to loopback clients)
module.exports.compressionOffered = function (connection) {
    const offer = connection._server.options.enableCompression;
    return typeof offer === 'function' ? !!offer(connection) : !!offer;
};

module.exports.sendCapabilityResponse = connection => {
    let capabilities = [];

    if (!connection.secure) {
        if (!connection._server.options.disableSTARTTLS) {
            capabilities.push('STARTTLS');
            if (!connection._server.options.ignoreSTARTTLS) {
                capabilities.push('LOGINDISABLED');
            }
        }
    }

    if (connection.state === 'Not Authenticated') {
        capabilities.push('AUTH=PLAIN');
        capabilities.push('AUTH=PLAIN-CLIENTTOKEN');
        capabilities.push('SASL-IR');
        capabilities.push('ENABLE');

        capabilities.push('ID');
        capabilities.push('UNSELECT');
        capabilities.push('IDLE');
        capabilities.push('NAMESPACE');
        if (typeof connection._server.onGetQuotaRoot === 'function') {
            capabilities.push('QUOTA');
        }
        capabilities.push('XLIST');
        capabilities.push('CHILDREN');
        capabilities.push('LITERAL+');

        // Advertise extended capabilities pre-auth (matches Gmail/Yahoo/Outlook behavior)
        capabilities.push('SPECIAL-USE');
        capabilities.push('UIDPLUS');
        capabilities.push('CONDSTORE');
        capabilities.push('UTF8=ACCEPT');
        capabilities.push('WITHIN');

        capabilities.push('MOVE');

        if (connection._server.options.maxMessage) {
            capabilities.push('APPENDLIMIT=' + connection._server.options.maxMessage);
        }
    } else {
        capabilities.push('ID');
        capabilities.push('UNSELECT');
        capabilities.push('IDLE');
        capabilities.push('NAMESPACE');
        if (typeof connection._server.onGetQuotaRoot === 'function') {
            capabilities.push('QUOTA');
        }
        capabilities.push('XLIST');
        capabilities.push('CHILDREN');
        capabilities.push('LITERAL+');

        capabilities.push('SPECIAL-USE');
        capabilities.push('UIDPLUS');
        capabilities.push('ENABLE');
        capabilities.push('CONDSTORE');
        capabilities.push('UTF8=ACCEPT');
        capabilities.push('WITHIN');

        capabilities.push('MOVE');

        if (module.exports.compressionOffered(connection)) {
            capabilities.push('COMPRESS=DEFLATE');
        }

        if (connection._server.options.maxMessage) {
            capabilities.push('APPENDLIMIT=' + connection._server.options.maxMessage);
        }
    }

    // RFC 4731 and 5182: SEARCH RETURN and $, and RFC 5267's CONTEXT=SEARCH (PARTIAL, UPDATE
    // evaluated again through the same hook), answered by the engine from any onSearch hook's matches
    if (typeof connection._server.onSearch === 'function') {
        capabilities.push('ESEARCH', 'SEARCHRES', 'CONTEXT=SEARCH');
    }
    // RFC 5256 (and RFC 5957's display keys, which onSort answers too, and RFC 5267's ESORT and
    // CONTEXT=SORT, answered by the engine from its matches): offered only by a server whose hooks answer them
    if (typeof connection._server.onSort === 'function') {
        capabilities.push('SORT', 'SORT=DISPLAY', 'ESORT', 'CONTEXT=SORT');
    }
    // RFC 3502: offered only by a server whose hook stores several messages all or none
    if (typeof connection._server.onMultiAppend === 'function') {
        capabilities.push('MULTIAPPEND');
    }
    // RFC 4469: offered only by a server whose hook resolves the URLs of the parts
    if (typeof connection._server.onCatenate === 'function') {
        capabilities.push('CATENATE');
    }
    if (typeof connection._server.onThread === 'function') {
        capabilities.push('THREAD=ORDEREDSUBJECT', 'THREAD=REFERENCES');
    }
    // RFC 5465: offered only by a server whose host reports the changes of every mailbox
    if (typeof connection._server.onNotify === 'function') {
        capabilities.push('NOTIFY');
    }

    // extensions added in this package (README.md, "What differs from upstream"), offered in both states
    capabilities.push(...extensionCapabilities);

    capabilities.sort((a, b) => a.localeCompare(b));

    let protocolCaps = connection._server.options.aps?.enabled ? ['XAPPLEPUSHSERVICE', 'IMAP4rev1'] : ['IMAP4rev1'];
    connection.send('* CAPABILITY ' + protocolCaps.concat(capabilities).join(' '));
};

module.exports.validateInternalDate = internaldate => {
    if (!internaldate || typeof internaldate !== 'string') {
        return false;
    }
    return /^([ \d]?\d)-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-(\d{4}) (\d{2}):(\d{2}):(\d{2}) ([-+])(\d{2})(\d{2})$/i.test(internaldate);
};

module.exports.validateSearchDate = internaldate => {
    if (!internaldate || typeof internaldate !== 'string') {
        return false;
    }
    return /^\d{1,2}-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-\d{4}$/i.test(internaldate);
};

module.exports.logClientId = connection => {
    if (!connection.session.clientId) {
        return false;
    }

    let logdata = {
        short_message: '[CLIENT ID]',
        _mail_action: 'client_id',
        _authenticated: !!connection.session && connection.session.user && connection.session.user.id ? 'yes' : 'no',
        _user: connection.session && connection.session.user && connection.session.user.id && connection.session.user.id.toString(),
        _sess: connection.id
    };

    Object.keys(connection.session.clientId || {}).forEach(key => {
        logdata[`_client_id_${key}`] = connection.session.clientId[key];
    });

    connection._server.loggelf(logdata);
};
