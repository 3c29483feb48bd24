'use strict';

const imapTools = require('./imap-tools');

/**
 * NOTIFY (RFC 5465): the command's arguments read into what a session asked to hear of, and
 * which of that a change of one mailbox concerns. Answers follow Dovecot 2.3's where the RFC
 * leaves them open (the BAD texts, INBOXES taken as PERSONAL, 100 names at most).
 */

const EVENTS = [
    'MessageNew',
    'MessageExpunge',
    'FlagChange',
    'AnnotationChange',
    'MailboxName',
    'SubscriptionChange',
    'MailboxMetadataChange',
    'ServerMetadataChange'
];
const EVENT_NAMES = new Map(EVENTS.map(name => [name.toUpperCase(), name]));

// no ANNOTATE or METADATA here: events about them are refused with BADEVENT (RFC 5465 5)
const UNSUPPORTED = ['AnnotationChange', 'MailboxMetadataChange', 'ServerMetadataChange'];

// events of messages in a mailbox, answered by STATUS for one not selected (RFC 5465 5.2-5.4)
const MESSAGE_EVENTS = ['MessageNew', 'MessageExpunge', 'FlagChange'];

// mailbox names a NOTIFY SET may name in one filter, as Dovecot; more is NOTIFICATIONOVERFLOW
const MAX_NAMES = 100;

function failure(message, response, code) {
    let err = new Error(message);
    err.response = response || 'BAD';
    err.code = code;
    return err;
}

const isNode = node => node && !Array.isArray(node);
const atom = node => (isNode(node) && node.type === 'ATOM' ? String(node.value) : null);
const astring = node => (isNode(node) && ['ATOM', 'STRING', 'LITERAL'].includes(node.type) ? Buffer.from(String(node.value), 'binary').toString() : null);

function eventName(node) {
    let name = EVENT_NAMES.get((atom(node) || '').toUpperCase());
    if (!name) {
        throw failure('Invalid arguments');
    }
    return name;
}

// a fetch-att of MessageNew's list (RFC 5465 8: fetch-att, no macros), checked by name; the FETCH it becomes checks the rest
function checkFetchAtt(node) {
    let name = (atom(node) || '').toLowerCase().replace(/\.peek$/, '');
    if (!Object.prototype.hasOwnProperty.call(imapTools.fetchSchema, name)) {
        throw failure('Invalid fetch-att list: Unknown parameter: ' + (atom(node) || ''));
    }
}

// SELECTED and SELECTED-DELAYED: NONE, or events; MessageNew and MessageExpunge come together (RFC 5465 5.1)
function selectedEvents(node) {
    if ((atom(node) || '').toUpperCase() === 'NONE') {
        return { events: new Set(), fetch: null };
    }
    if (!Array.isArray(node) || !node.length) {
        throw failure('Invalid arguments');
    }
    let events = new Set();
    let fetch = null;
    for (let i = 0; i < node.length; i++) {
        let name = eventName(node[i]);
        events.add(name);
        if (name === 'MessageNew' && Array.isArray(node[i + 1])) {
            fetch = node[++i];
            fetch.forEach(checkFetchAtt);
        }
    }
    if (events.has('MessageNew') !== events.has('MessageExpunge')) {
        throw failure('MessageNew and MessageExpunge must be together');
    }
    if ((events.has('FlagChange') || events.has('AnnotationChange')) && !events.has('MessageExpunge')) {
        throw failure('FlagChange requires MessageNew and MessageExpunge');
    }
    return { events, fetch };
}

function mailboxNames(node, utf7) {
    let nodes = Array.isArray(node) ? node : [node];
    let names = nodes.map(astring);
    if (!nodes.length || names.some(name => name === null)) {
        throw failure('Invalid arguments');
    }
    return names.map(name => imapTools.normalizeMailbox(name, utf7) || name);
}

/**
 * `NOTIFY NONE` is null; `NOTIFY SET [STATUS] (filter events)...` is
 * `{status, selected: {delayed, events, fetch} | null, groups: [{filter, names, events}], used}`,
 * `used` every event named. Throws an error with `response` (BAD or NO) and `code`.
 *
 * @param {Array} attributes The command's parsed arguments
 * @param {Boolean} utf7 Whether mailbox names are modified UTF-7 (no UTF8=ACCEPT)
 */
function parseNotify(attributes, utf7) {
    let args = [].concat(attributes || []);
    let verb = (atom(args[0]) || '').toUpperCase();
    if (verb === 'NONE') {
        return null;
    }
    if (verb !== 'SET') {
        throw failure('Invalid arguments');
    }
    let spec = { status: false, selected: null, groups: [], used: new Set() };
    let i = 1;
    if ((atom(args[i]) || '').toUpperCase() === 'STATUS') {
        spec.status = true;
        i++;
    }
    for (; i < args.length; i++) {
        let group = args[i];
        let filter = (Array.isArray(group) && (atom(group[0]) || '').toUpperCase()) || '';
        if (filter === 'SELECTED' || filter === 'SELECTED-DELAYED') {
            if (spec.selected) {
                throw failure('Duplicate selected filter');
            }
            if (group.length !== 2) {
                throw failure('Invalid arguments');
            }
            spec.selected = Object.assign({ delayed: filter === 'SELECTED-DELAYED' }, selectedEvents(group[1]));
            spec.selected.events.forEach(name => spec.used.add(name));
            continue;
        }
        let names = null;
        let rest = group;
        if (filter === 'SUBTREE' || filter === 'MAILBOXES') {
            names = mailboxNames(group[1], utf7);
            rest = group.slice(1);
            if (names.length > MAX_NAMES) {
                throw failure('Too many mailbox names', 'NO', 'NOTIFICATIONOVERFLOW');
            }
        } else if (!['PERSONAL', 'INBOXES', 'SUBSCRIBED'].includes(filter)) {
            throw failure('Invalid arguments');
        }
        if (rest.length !== 2) {
            throw failure('Invalid arguments');
        }
        if ((atom(rest[1]) || '').toUpperCase() === 'NONE') {
            continue;
        }
        if (!Array.isArray(rest[1]) || !rest[1].length) {
            throw failure('Invalid arguments');
        }
        let events = new Set(rest[1].map(eventName));
        events.forEach(name => spec.used.add(name));
        spec.groups.push({ filter, names, events });
    }
    let unsupported = UNSUPPORTED.filter(name => spec.used.has(name));
    if (unsupported.length) {
        throw failure('Unsupported NOTIFY events', 'NO', 'BADEVENT ' + unsupported.join(' '));
    }
    return spec;
}

/**
 * The events `spec` asks to hear of for the mailbox `path`: those of every filter naming it.
 * There is one personal namespace and every mailbox counts as subscribed, so PERSONAL,
 * INBOXES and SUBSCRIBED name them all (Dovecot takes INBOXES as PERSONAL too).
 */
function eventsFor(spec, path) {
    let events = new Set();
    for (let group of (spec && spec.groups) || []) {
        let named =
            !group.names ||
            group.names.some(name => name === path || (group.filter === 'SUBTREE' && (path.startsWith(name + '/') || name === '')));
        if (named) {
            group.events.forEach(name => events.add(name));
        }
    }
    return events;
}

/** Whether `spec` lets the selected mailbox announce `event` (no NOTIFY: everything, as IMAP4rev1 does). */
function selectedAllows(spec, event) {
    return !spec || !!(spec.selected && spec.selected.events.has(event));
}

module.exports = { parseNotify, eventsFor, selectedAllows, MESSAGE_EVENTS };
