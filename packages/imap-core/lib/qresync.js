'use strict';

const imapTools = require('./imap-tools');

/**
 * QRESYNC (RFC 7162 3.2): the SELECT/EXAMINE parameter, VANISHED responses and the UID sets
 * they carry.
 */

const isNumber = (node, zero) => node && !Array.isArray(node) && (zero ? /^\d+$/ : /^[1-9]\d*$/).test((node.value || '').toString());

/**
 * The QRESYNC parameter of SELECT/EXAMINE: `(uidvalidity modseq [known-uids [(seqs uids)]])`.
 * The sequence match data is checked and not used: it only narrows what the answer must hold.
 *
 * @return {Object} `{uidValidity, modseq, knownUids}` (knownUids a UID set or null), or `{error}`
 */
function parseQresyncParameter(list) {
    if (!Array.isArray(list) || list.length < 2 || list.length > 4 || !isNumber(list[0]) || !isNumber(list[1], true)) {
        return { error: 'Invalid QRESYNC parameter' };
    }
    let knownUids = null;
    if (list.length > 2) {
        knownUids = ((list[2] && list[2].value) || '').toString();
        if (Array.isArray(list[2]) || !imapTools.validateSequence(knownUids)) {
            return { error: 'Invalid known UIDs in QRESYNC parameter' };
        }
    }
    if (list.length > 3) {
        let match = list[3];
        if (!Array.isArray(match) || match.length !== 2 || !match.every(node => !Array.isArray(node) && imapTools.validateSequence((node && node.value) || ''))) {
            return { error: 'Invalid sequence match data in QRESYNC parameter' };
        }
    }
    return { uidValidity: Number(list[0].value), modseq: Number(list[1].value), knownUids };
}

/** A UID set written compactly: "1:3,5,7:8". */
function packUids(uids) {
    let sorted = [...new Set(uids)].sort((a, b) => a - b);
    let parts = [];
    for (let i = 0; i < sorted.length; i++) {
        let start = sorted[i];
        while (i + 1 < sorted.length && sorted[i + 1] === sorted[i] + 1) {
            i++;
        }
        parts.push(start === sorted[i] ? String(start) : start + ':' + sorted[i]);
    }
    return parts.join(',');
}

/**
 * `* VANISHED (EARLIER) uids` for messages expunged before this session was told (a resync),
 * `* VANISHED uids` for those expunged now (instead of EXPUNGE once QRESYNC is enabled).
 */
function vanishedLine(uids, earlier) {
    return '* VANISHED ' + (earlier ? '(EARLIER) ' : '') + packUids(uids);
}

/** Those of `uids` a client's UID set names; `*` stands for the largest of `uids` and `known`. */
function uidsInSet(uids, set, known) {
    let all = [...new Set([...uids, ...known])].sort((a, b) => a - b);
    let named = new Set(imapTools.getMessageRange(all, set, true));
    return uids.filter(uid => named.has(uid));
}

module.exports = { parseQresyncParameter, packUids, vanishedLine, uidsInSet };
