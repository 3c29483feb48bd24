'use strict';

const imapHandler = require('./handler/imap-handler');
const { utf7encode } = require('./imap-tools');
const { statusResponse } = require('./status-items');
const { eventsFor, MESSAGE_EVENTS } = require('./notify');
const fetchCommand = require('./commands/fetch');

/**
 * What NOTIFY (RFC 5465) sends: `* STATUS` of mailboxes other than the selected one, `* LIST`
 * of mailbox names that came or went, and the selected mailbox's changes at once, between
 * commands too. The host reports changes (`session.notifyMailbox`, `session.notifyMailboxName`);
 * they wait here until no command runs, or go before the answer of the one that runs.
 * At most MAX_PENDING mailboxes and names wait: past that the session is told
 * `* OK [NOTIFICATIONOVERFLOW]` and hears nothing more, as after NOTIFY NONE (RFC 5465 5.8).
 */

// mailboxes and names that may wait, unless the server's `notifyMaxPending` says otherwise
const MAX_PENDING = 1000;
// bytes written but not yet taken by the client past which pushes wait for the socket to drain,
// so a client that stops reading fills the bounded queue (and overflows), not the process
const MAX_UNREAD = 1024 * 1024;
// last UNSEEN told per mailbox, so a flag change that leaves it is not sent again (as Dovecot)
const MAX_KNOWN = 1000;

function pending(connection) {
    if (!connection._notifyPending) {
        connection._notifyPending = { statuses: new Map(), names: [], overflow: false };
    }
    return connection._notifyPending;
}

function isEmpty(connection) {
    let queue = connection._notifyPending;
    return !queue || (!queue.statuses.size && !queue.names.length && !queue.overflow);
}

function full(connection) {
    let queue = pending(connection);
    return queue.statuses.size + queue.names.length >= (connection._server.options.notifyMaxPending || MAX_PENDING);
}

function overflow(connection) {
    let queue = pending(connection);
    queue.statuses.clear();
    queue.names = [];
    queue.overflow = true;
    setNotify(connection, null);
}

/** The session's NOTIFY, null for none; the host learns it to report changes or stop. */
function setNotify(connection, spec) {
    connection.notify = spec;
    if (typeof connection._server.onNotify === 'function') {
        connection._server.onNotify(spec, connection.session);
    }
}

/** A change of the mailbox `path` (`events`: MessageNew, MessageExpunge, FlagChange). */
function queueStatus(connection, path, events) {
    if (!connection.notify || (connection.selected && connection.selected.path === path)) {
        return;
    }
    let wanted = eventsFor(connection.notify, path);
    let matched = [].concat(events || []).filter(event => MESSAGE_EVENTS.includes(event) && wanted.has(event));
    if (!matched.length) {
        return;
    }
    let queue = pending(connection);
    let queued = queue.statuses.get(path);
    if (!queued) {
        if (full(connection)) {
            return overflow(connection);
        }
        queue.statuses.set(path, (queued = new Set()));
    }
    matched.forEach(event => queued.add(event));
    schedule(connection);
}

/** A mailbox created (`{path}`), deleted (`{path, deleted: true}`) or renamed (`{path, oldPath}`). */
function queueName(connection, change) {
    let wanted = connection.notify && (eventsFor(connection.notify, change.path).has('MailboxName') || (change.oldPath && eventsFor(connection.notify, change.oldPath).has('MailboxName')));
    if (!wanted) {
        return;
    }
    if (full(connection)) {
        return overflow(connection);
    }
    pending(connection).names.push(change);
    schedule(connection);
}

function mailboxName(connection, path) {
    return connection.acceptUTF8Enabled ? Buffer.from(path) : utf7encode(path);
}

function listResponse(connection, change) {
    let attributes = [change.deleted ? [{ type: 'atom', value: '\\NonExistent' }] : [], '/', mailboxName(connection, change.path)];
    if (change.oldPath) {
        attributes.push(['OLDNAME', [mailboxName(connection, change.oldPath)]]);
    }
    return { tag: '*', command: 'LIST', attributes };
}

// the items Dovecot sends for each event: counts for new and expunged messages, UNSEEN for flags,
// HIGHESTMODSEQ once CONDSTORE is on
function statusItems(connection, events) {
    let items = new Set();
    if (events.has('MessageNew') || events.has('MessageExpunge')) {
        ['MESSAGES', 'UIDNEXT', 'UNSEEN'].forEach(item => items.add(item));
    }
    if (events.has('FlagChange')) {
        items.add('UNSEEN');
    }
    if (connection.condstoreEnabled) {
        items.add('HIGHESTMODSEQ');
    }
    return ['MESSAGES', 'UIDNEXT', 'UIDVALIDITY', 'UNSEEN', 'HIGHESTMODSEQ'].filter(item => items.has(item));
}

function remember(connection, path, data) {
    let known = connection._notifyUnseen || (connection._notifyUnseen = new Map());
    known.delete(path);
    known.set(path, data.unseen);
    if (known.size > MAX_KNOWN) {
        known.delete(known.keys().next().value);
    }
}

/** Writes `* STATUS path (items)` from the onStatus hook; a mailbox that fails is left out. */
function sendStatus(connection, path, items, events, done) {
    connection._server.onStatus(path, items, connection.session, (err, data) => {
        if (err || !data || typeof data !== 'object') {
            return done();
        }
        let known = connection._notifyUnseen && connection._notifyUnseen.get(path);
        let flagsOnly = events && !events.has('MessageNew') && !events.has('MessageExpunge');
        if (flagsOnly && known === data.unseen) {
            // a flag change that left UNSEEN: only HIGHESTMODSEQ is news, if CONDSTORE is on
            items = items.filter(item => item !== 'UNSEEN');
        }
        if (items.includes('UNSEEN')) {
            remember(connection, path, data);
        }
        if (items.length) {
            connection.send(imapHandler.compiler(statusResponse(mailboxName(connection, path), items, data)));
        }
        done();
    });
}

/** Writes what waits for mailboxes other than the selected one, then calls `done`. */
function flushMailboxes(connection, done) {
    let queue = connection._notifyPending;
    if (!queue || typeof connection._server.onStatus !== 'function') {
        return done();
    }
    if (queue.overflow) {
        queue.overflow = false;
        connection.send('* OK [NOTIFICATIONOVERFLOW] Too many notifications pending, NOTIFY is off');
    }
    let names = queue.names;
    queue.names = [];
    names.forEach(change => connection.send(imapHandler.compiler(listResponse(connection, change))));
    let statuses = [...queue.statuses];
    queue.statuses.clear();
    let next = () => {
        if (!statuses.length) {
            return done();
        }
        let [path, events] = statuses.shift();
        sendStatus(connection, path, statusItems(connection, events), events, next);
    };
    next();
}

/**
 * The STATUS of every mailbox the NOTIFY names with message events, but the selected one,
 * before its OK (NOTIFY SET STATUS, RFC 5465 3.1): the items Dovecot sends.
 */
function sendInitialStatus(connection, spec, done) {
    if (typeof connection._server.onList !== 'function' || typeof connection._server.onStatus !== 'function') {
        return done();
    }
    let items = ['MESSAGES', 'UIDNEXT', 'UIDVALIDITY', 'UNSEEN'];
    if (spec.used.has('FlagChange')) {
        items.push('HIGHESTMODSEQ');
    }
    connection._server.onList({}, connection.session, (err, folders) => {
        let paths = (err ? [] : [].concat(folders || []))
            .filter(folder => !(folder.flags || []).some(flag => /^\\(Noselect|NonExistent)$/i.test(flag)))
            .map(folder => folder.path)
            .filter(path => !(connection.selected && connection.selected.path === path))
            .filter(path => [...eventsFor(spec, path)].some(event => MESSAGE_EVENTS.includes(event)));
        let next = () => (paths.length ? sendStatus(connection, paths.shift(), items, null, next) : done());
        next();
    });
}

/**
 * `* n FETCH (fetch-atts)` of the messages just announced by EXISTS, as the NOTIFY's
 * `MessageNew (fetch-atts)` asks (RFC 5465 5.2), through the FETCH command's own handling.
 */
function fetchNew(connection, done) {
    let selected = connection.selected;
    let uids = (selected && selected.notifyNew) || [];
    if (selected) {
        selected.notifyNew = [];
    }
    let spec = connection.notify;
    let atts = spec && spec.selected && spec.selected.fetch;
    if (!atts || !uids.length || connection.state !== 'Selected') {
        return done();
    }
    // new messages end the list: their sequence numbers, from the end, joined into ranges
    let wanted = new Set(uids);
    let seqs = [];
    for (let i = selected.uidList.length - 1; i >= 0 && seqs.length < wanted.size; i--) {
        if (wanted.has(selected.uidList[i])) {
            seqs.push(i + 1);
        }
    }
    seqs.reverse();
    if (!seqs.length) {
        return done();
    }
    let ranges = [];
    seqs.forEach(seq => {
        let last = ranges[ranges.length - 1];
        if (last && last[1] === seq - 1) {
            last[1] = seq;
        } else {
            ranges.push([seq, seq]);
        }
    });
    let command = {
        tag: '*',
        command: 'FETCH',
        // the FETCH handling rewrites its items (BODY.PEEK becomes BODY): each gets its own copy
        attributes: [{ type: 'SEQUENCE', value: ranges.map(([a, b]) => (a === b ? a : a + ':' + b)).join(',') }, JSON.parse(JSON.stringify(atts))]
    };
    let called = false;
    let finish = () => {
        if (!called) {
            called = true;
            done();
        }
    };
    try {
        let result = fetchCommand.handler.call(connection, command, finish);
        if (result && typeof result.then === 'function') {
            result.then(null, finish);
        }
    } catch (err) {
        finish();
    }
}

/**
 * Whether a command is being received (a literal awaited) or runs (its answer not written yet):
 * notifications then wait for its end.
 */
function busy(connection) {
    return !!(connection._commandRunning || connection._currentCommand);
}

/**
 * Whether the client left too much unread: then the push waits for the socket's 'drain'.
 */
function backedUp(connection) {
    let socket = connection._socket;
    let unread = ((connection.writeStream && connection.writeStream.readableLength) || 0) + ((socket && socket.writableLength) || 0);
    if (unread <= (connection._server.options.notifyMaxUnread || MAX_UNREAD)) {
        return false;
    }
    if (!connection._notifyDraining && socket) {
        connection._notifyDraining = true;
        socket.once('drain', () => {
            connection._notifyDraining = false;
            schedule(connection);
        });
    }
    return true;
}

/**
 * Sends what waits, unsolicited, once no command runs: the selected mailbox's changes when
 * the NOTIFY asks for them (or in IDLE), EXPUNGE only for SELECTED (SELECTED-DELAYED keeps them
 * for a command that allows them), the fetch-atts of new messages, the search contexts'
 * updates, then the other mailboxes.
 */
function push(connection) {
    connection._notifyScheduled = false;
    if (connection._closing || connection._closed || busy(connection) || connection._notifyPushing || backedUp(connection)) {
        return;
    }
    let spec = connection.notify;
    let selectedNow = connection.state === 'Selected' && (connection.idling || (spec && spec.selected));
    if (!selectedNow && isEmpty(connection)) {
        return;
    }
    connection._notifyPushing = [];
    let finish = () => {
        let waiting = connection._notifyPushing || [];
        connection._notifyPushing = false;
        waiting.forEach(run => run());
    };
    // a push runs on its own turn of the event loop: what throws in it fails this push only
    let guarded = fn => () => {
        try {
            fn();
        } catch (err) {
            connection.logger.error({ err, tnx: 'notify', cid: connection.id }, '[%s] NOTIFY push failed: %s', connection.id, err && err.message);
            finish();
        }
    };
    let others = guarded(() => flushMailboxes(connection, finish));
    if (!selectedNow) {
        return others();
    }
    let allowExpunge = connection.idling || !spec || !spec.selected || !spec.selected.delayed;
    guarded(() => {
        connection.emitNotifications(allowExpunge);
        fetchNew(connection, () => connection.sendSearchUpdates(others));
    })();
}

/** Asks for a push once the event loop turns (several changes of one poll go together). */
function schedule(connection) {
    if (!connection._notifyScheduled) {
        connection._notifyScheduled = true;
        setImmediate(() => push(connection));
    }
}

/**
 * Runs `run` (a client command) now, or once an unsolicited push ends, so that their lines
 * never mix.
 */
function whenQuiet(connection, run) {
    if (connection._notifyPushing) {
        connection._notifyPushing.push(run);
    } else {
        run();
    }
}

module.exports = {
    setNotify,
    queueStatus,
    queueName,
    flushMailboxes,
    sendInitialStatus,
    fetchNew,
    schedule,
    whenQuiet
};
