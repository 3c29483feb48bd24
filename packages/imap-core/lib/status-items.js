'use strict';

const { objectIdValue } = require('./object-ids');

/**
 * The items of STATUS (RFC 3501 6.3.10, HIGHESTMODSEQ of RFC 7162, SIZE of RFC 8438, MAILBOXID
 * of RFC 8474), shared
 * by STATUS and LIST's RETURN (STATUS (...)) (RFC 5819).
 */

// in the order the response gives them, whatever the order asked (as Dovecot does)
const statusItems = ['MESSAGES', 'RECENT', 'UIDNEXT', 'UIDVALIDITY', 'UNSEEN', 'HIGHESTMODSEQ', 'SIZE', 'MAILBOXID'];

/**
 * @param {Array} list The parsed list of items
 * @return {Array|String} The item names, upper case, each once and in response order, or an error message
 */
function parseStatusItems(list) {
    if (!Array.isArray(list)) {
        return 'Invalid arguments for STATUS';
    }
    if (!list.length) {
        return 'Empty status list';
    }
    let asked = new Set();
    for (let node of list) {
        let item = ((node && node.value) || '').toString().toUpperCase();
        if (Array.isArray(node) || !statusItems.includes(item)) {
            return 'Invalid status items';
        }
        asked.add(item);
    }
    return statusItems.filter(item => asked.has(item));
}

/**
 * Asking for HIGHESTMODSEQ enables CONDSTORE (RFC 7162 3.1).
 */
function enableCondstoreFor(connection, items) {
    if (items.includes('HIGHESTMODSEQ')) {
        connection.enableCondstore();
    }
}

/**
 * The untagged STATUS response for `mailbox` (the name as the response writes it) from the
 * onStatus hook's `data`.
 */
function statusResponse(mailbox, items, data) {
    let values = { RECENT: 0 };
    Object.keys(data).forEach(key => {
        values[key.toUpperCase()] = (data[key] || '').toString();
    });
    let attributes = [];
    items.forEach(key => {
        // MAILBOXID is a parenthesized objectid (RFC 8474 4.2), left out when the hook has none
        let value = key === 'MAILBOXID' ? objectIdValue(data.mailboxId) : { type: 'atom', value: (values[key] || '0').toString() };
        if (value) {
            attributes.push({ type: 'atom', value: key }, value);
        }
    });
    return { tag: '*', command: 'STATUS', attributes: [mailbox, attributes] };
}

module.exports = { parseStatusItems, enableCondstoreFor, statusResponse };
