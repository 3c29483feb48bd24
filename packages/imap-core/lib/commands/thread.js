'use strict';

const search = require('./search');

const ALGORITHMS = ['ORDEREDSUBJECT', 'REFERENCES'];

/**
 * A thread forest in RFC 5256's syntax: a node's children follow it, one as a plain number,
 * several each in parentheses; a dummy (no number) is just its children. Written into one
 * string as the tree is walked (no array and join per node: answers reach 10,000 messages).
 */
function formatThreads(roots, number) {
    let out = '';
    // whether a node's children write anything (a dummy without messages below it writes nothing)
    let nested = node => node.children.length > 1 || (node.children.length === 1 && (node.children[0].uid !== null || nested(node.children[0])));
    let members = node => {
        if (node.uid !== null) {
            out += number(node.uid);
            if (!nested(node)) {
                return;
            }
            out += ' ';
        }
        if (node.children.length === 1) {
            members(node.children[0]);
            return;
        }
        for (let child of node.children) {
            out += '(';
            members(child);
            out += ')';
        }
    };
    for (let root of roots) {
        out += '(';
        members(root);
        out += ')';
    }
    return out;
}

/**
 * THREAD and UID THREAD (RFC 5256): `THREAD algorithm charset search-keys`. The onThread hook
 * gets `{algorithm, query, terms, isUid}` and answers `{threads}`: nodes `{uid, children}`,
 * `uid` null for a dummy.
 */
module.exports = {
    state: 'Selected',

    schema: false,

    handler(command, callback) {
        let isUid = (command.command || '').toString().toUpperCase() === 'UID THREAD';
        let [algorithm, charset, ...keys] = [].concat(command.attributes || []);
        algorithm = String((algorithm && algorithm.type === 'ATOM' && algorithm.value) || '').toUpperCase();

        if (!ALGORITHMS.includes(algorithm)) {
            return callback(new Error('Unknown threading algorithm ' + (algorithm || '?')));
        }
        if (!charset || Array.isArray(charset) || !keys.length) {
            return callback(new Error('THREAD needs a charset and search keys'));
        }

        let terms = ['CHARSET', charset.value].concat(search.flattenTerms(keys));
        search.runSearch(this, 'onThread', terms, { algorithm: algorithm.toLowerCase(), isUid }, callback, results => {
            let number = uid => uid;
            if (!isUid) {
                let sequence = new Map(this.selected.uidList.map((uid, i) => [uid, i + 1]));
                number = uid => sequence.get(uid);
            }
            this.send(search.numbersResponse('THREAD', formatThreads(results.threads, number)));
        });
    },

    formatThreads
};
