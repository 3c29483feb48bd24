'use strict';

/**
 * The arguments of LIST as LIST-EXTENDED (RFC 5258) has them:
 *
 *     LIST [(selection options)] reference (pattern | (pattern ...)) [RETURN (return options)]
 *
 * Selection options: SUBSCRIBED, REMOTE, RECURSIVEMATCH (with another one), SPECIAL-USE (RFC 6154).
 * Return options: SUBSCRIBED, CHILDREN, SPECIAL-USE (RFC 6154), and with `statusItems` given,
 * STATUS (items) (LIST-STATUS, RFC 5819). Anything else is an error, answered BAD.
 */

const selectionOptions = new Set(['SUBSCRIBED', 'REMOTE', 'RECURSIVEMATCH', 'SPECIAL-USE']);
const returnOptions = new Set(['SUBSCRIBED', 'CHILDREN', 'SPECIAL-USE']);

const upper = node => ((node && node.value) || '').toString().toUpperCase();
const text = node => Buffer.from((node && node.value) || '', 'binary').toString();
const isAtom = node => node && !Array.isArray(node) && (node.type || '').toUpperCase() === 'ATOM';

/**
 * @param {Array} attributes The parsed arguments of the command
 * @param {Function|null} statusItems Checks the items of RETURN (STATUS (...)): returns the
 *        list of item names, or an error message; null when LIST-STATUS is not offered
 * @return {Object} `{error}`, or `{extended, selection, returns, reference, patterns}`
 */
function parseListArguments(attributes, statusItems) {
    let pos = 0;
    let extended = false;
    let selection = { subscribed: false, remote: false, recursiveMatch: false, specialUse: false };
    let returns = { subscribed: false, children: false, specialUse: false, status: null };

    if (Array.isArray(attributes[pos])) {
        extended = true;
        for (let node of attributes[pos]) {
            let option = upper(node);
            if (!isAtom(node) || !selectionOptions.has(option)) {
                return { error: 'Unknown selection option' };
            }
            selection[option === 'SPECIAL-USE' ? 'specialUse' : option === 'RECURSIVEMATCH' ? 'recursiveMatch' : option.toLowerCase()] = true;
        }
        pos++;
    }
    if (selection.recursiveMatch && !selection.subscribed && !selection.specialUse) {
        return { error: 'RECURSIVEMATCH must not be the only selection option' };
    }
    // RFC 5258 3.1: the SUBSCRIBED selection implies the SUBSCRIBED return option
    returns.subscribed = selection.subscribed;

    if (attributes.length < pos + 2) {
        return { error: 'Missing arguments' };
    }
    let reference = text(attributes[pos++]);

    let patterns;
    if (Array.isArray(attributes[pos])) {
        extended = true;
        patterns = attributes[pos].map(text);
        if (!patterns.length) {
            return { error: 'Empty list of mailbox patterns' };
        }
    } else {
        patterns = [text(attributes[pos])];
    }
    pos++;

    if (pos < attributes.length) {
        if (!isAtom(attributes[pos]) || upper(attributes[pos]) !== 'RETURN' || !Array.isArray(attributes[pos + 1]) || attributes.length > pos + 2) {
            return { error: 'Invalid arguments' };
        }
        extended = true;
        let options = attributes[pos + 1];
        for (let i = 0; i < options.length; i++) {
            let option = upper(options[i]);
            if (isAtom(options[i]) && option === 'STATUS' && statusItems && Array.isArray(options[i + 1]) && !returns.status) {
                let items = statusItems(options[++i]);
                if (typeof items === 'string') {
                    return { error: items };
                }
                returns.status = items;
            } else if (isAtom(options[i]) && returnOptions.has(option)) {
                returns[option === 'SPECIAL-USE' ? 'specialUse' : option.toLowerCase()] = true;
            } else {
                return { error: 'Unknown return option' };
            }
        }
    }

    return { extended, selection, returns, reference, patterns };
}

module.exports = { parseListArguments };
