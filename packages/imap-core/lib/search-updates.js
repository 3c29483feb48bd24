'use strict';

const imapHandler = require('./handler/imap-handler');
const { sequenceSet } = require('./imap-tools');

// as Dovecot: an eleventh RETURN (UPDATE) in one selected mailbox is refused with NOUPDATE
const MAX_SEARCH_UPDATES = 10;

/**
 * Keeps the result of a SEARCH or SORT with RETURN (UPDATE) (RFC 5267 4.3) for the selected
 * mailbox: `context` is `{tag, isUid, hook, options, uids}`, the hook and its options to
 * evaluate the query again and the matching UIDs (ascending for SEARCH, in sort order for
 * SORT). Beyond MAX_SEARCH_UPDATES the client is told `* NO [NOUPDATE "tag"]` and nothing is
 * kept; the command is answered all the same, as Dovecot does.
 */
function addContext(connection, context) {
    let contexts = connection.selected.searchUpdates || (connection.selected.searchUpdates = []);
    if (contexts.length >= MAX_SEARCH_UPDATES) {
        connection.send(
            imapHandler.compiler({
                tag: '*',
                command: 'NO',
                attributes: [{ type: 'section', section: [{ type: 'atom', value: 'NOUPDATE' }, { type: 'string', value: context.tag }] }]
            })
        );
        return;
    }
    contexts.push(context);
}

/** Whether the selected mailbox keeps a context for `tag`. */
function hasContext(selected, tag) {
    return !!(selected && selected.searchUpdates && selected.searchUpdates.some(context => context.tag === tag));
}

/** Ends the updates of the contexts named by `tags`, in order; false at the first unknown one. */
function cancelContexts(selected, tags) {
    let contexts = selected.searchUpdates || [];
    for (let tag of tags) {
        let i = contexts.findIndex(context => context.tag === tag);
        if (i < 0) {
            return false;
        }
        contexts.splice(i, 1);
    }
    return true;
}

/** `* ESEARCH (TAG "t") [UID] name (position set ...)...` for [[name, [[position, numbers]]]]. */
function updateResponse(context, items) {
    let attributes = [[{ type: 'atom', value: 'TAG' }, { type: 'string', value: context.tag }]];
    if (context.isUid) {
        attributes.push({ type: 'atom', value: 'UID' });
    }
    items.forEach(([name, groups]) => {
        attributes.push({ type: 'atom', value: name }, [].concat(...groups.map(([position, numbers]) => [{ type: 'atom', value: String(position) }, { type: 'atom', value: sequenceSet(numbers) }])));
    });
    return imapHandler.compiler({ tag: '*', command: 'ESEARCH', attributes });
}

/** The numbers the client knows the UIDs by: themselves with UID, else their sequence numbers now. */
function clientNumbers(connection, context, uids) {
    if (context.isUid) {
        return uids;
    }
    let sequence = new Map(connection.selected.uidList.map((uid, i) => [uid, i + 1]));
    return uids.map(uid => sequence.get(uid));
}

/**
 * REMOVEFROM groups: for SEARCH one group at position 0 of the numbers ascending, as Dovecot
 * sends them; for SORT, each run of removed messages that are adjacent in the result, at the
 * position of its first one once the runs before it are removed (RFC 5267 4.3.4), so that the
 * client, removing group after group, keeps the server's order.
 */
function removeGroups(connection, context, removed) {
    if (!context.sort) {
        return [[0, clientNumbers(connection, context, context.uids.filter(uid => removed.has(uid)))]];
    }
    let groups = [];
    let gone = 0;
    let previous = -2;
    context.uids.forEach((uid, i) => {
        if (!removed.has(uid)) {
            return;
        }
        if (previous === i - 1) {
            groups[groups.length - 1][1].push(uid);
        } else {
            groups.push([i + 1 - gone, [uid]]);
        }
        previous = i;
        gone++;
    });
    return groups.map(([position, uids]) => [position, clientNumbers(connection, context, uids)]);
}

/**
 * ADDTO groups: for SEARCH one group at position 0; for SORT each run of added messages
 * adjacent in the new result, at the position of its first one in the new result (RFC 5267
 * 4.3.3): inserted in this order, each lands where the server has it.
 */
function addGroups(connection, context, result, added) {
    if (!context.sort) {
        return [[0, clientNumbers(connection, context, result.filter(uid => added.has(uid)))]];
    }
    let groups = [];
    let previous = -2;
    result.forEach((uid, i) => {
        if (!added.has(uid)) {
            return;
        }
        if (previous === i - 1) {
            groups[groups.length - 1][1].push(uid);
        } else {
            groups.push([i + 1, [uid]]);
        }
        previous = i;
    });
    return groups.map(([position, uids]) => [position, clientNumbers(connection, context, uids)]);
}

/**
 * Before the EXPUNGE responses of `uids` go out: REMOVEFROM for the expunged messages each
 * context held, numbered while they still have their sequence numbers (RFC 5267 4.3.4), as
 * Dovecot sends them. Called by emitNotifications, only when EXPUNGE may be sent.
 */
function announceExpunged(connection, uids) {
    let contexts = (connection.selected && connection.selected.searchUpdates) || [];
    contexts.forEach(context => {
        let removed = new Set(context.uids.filter(uid => uids.has(uid)));
        if (!removed.size) {
            return;
        }
        connection.writeStream.write({ compiled: updateResponse(context, [['REMOVEFROM', removeGroups(connection, context, removed)]]) });
        context.uids = context.uids.filter(uid => !removed.has(uid));
    });
}

/**
 * A new sort result with the held expunged messages of the old one (`held`) put back where
 * they were: each after the old message before it that is still in the result.
 */
function keepHeld(old, result, held) {
    let merged = result.slice();
    let now = new Set(result);
    old.forEach((uid, i) => {
        if (!held.has(uid) || now.has(uid)) {
            return;
        }
        let before = old.slice(0, i).reverse().find(other => now.has(other));
        merged.splice(before === undefined ? 0 : merged.indexOf(before) + 1, 0, uid);
        now.add(uid);
    });
    return merged;
}

/**
 * After the selected mailbox's changes were sent (new messages with EXISTS, flags with FETCH):
 * each context's query is evaluated again through its hook and the difference sent as
 * REMOVEFROM and ADDTO in one ESEARCH response (RFC 5267 4.3). Messages whose EXPUNGE is still
 * held (during FETCH, STORE or SEARCH) stay in the result until their EXPUNGE goes out.
 * `done` is called when every context was answered (or failed: a failed evaluation sends
 * nothing and keeps the result for the next change).
 */
function sendUpdates(connection, done) {
    let selected = connection.selected;
    let contexts = (selected && selected.searchUpdates) || [];
    if (!contexts.length) {
        return done();
    }
    let held = new Set((selected.notifications || []).filter(update => update.command === 'EXPUNGE').map(update => update.uid));
    let next = i => {
        if (i >= contexts.length || connection.selected !== selected) {
            return done();
        }
        let context = contexts[i];
        // evaluations overlap (one for IDLE, one for the next command): an answer older than the
        // one already applied would take the context back to a state the mailbox has left
        let evaluation = (context.evaluations = (context.evaluations || 0) + 1);
        connection._server[context.hook](selected.mailbox, context.options, connection.session, (err, results) => {
            let newest = evaluation > (context.applied || 0);
            if (!err && newest && results && Array.isArray(results.uidList) && connection.selected === selected && contexts.includes(context)) {
                context.applied = evaluation;
                let visible = new Set(selected.uidList);
                let result = results.uidList.filter(uid => visible.has(uid));
                if (!context.sort) {
                    result.sort((a, b) => a - b);
                }
                let now = new Set(result);
                let before = new Set(context.uids);
                // a held expunged message stays where it was until its EXPUNGE goes out
                let removed = new Set(context.uids.filter(uid => !now.has(uid) && !held.has(uid)));
                let added = new Set(result.filter(uid => !before.has(uid)));
                let items = [];
                if (removed.size) {
                    items.push(['REMOVEFROM', removeGroups(connection, context, removed)]);
                }
                let merged = context.sort ? keepHeld(context.uids, result, held) : result.concat(context.uids.filter(uid => held.has(uid) && !now.has(uid))).sort((a, b) => a - b);
                if (added.size) {
                    items.push(['ADDTO', addGroups(connection, context, merged, added)]);
                }
                context.uids = merged;
                if (items.length) {
                    connection.send(updateResponse(context, items));
                }
            }
            next(i + 1);
        });
    };
    next(0);
}

module.exports = { addContext, hasContext, cancelContexts, announceExpunged, sendUpdates };
