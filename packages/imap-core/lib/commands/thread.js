'use strict';

const search = require('./search');

const ALGORITHMS = ['ORDEREDSUBJECT', 'REFERENCES'];

/**
 * Whether a node's children write anything: a dummy without messages below it writes nothing.
 * Down a chain of single dummies as far as it goes, without recursion.
 */
function nested(node) {
    for (let n = node; ; n = n.children[0]) {
        if (n.children.length !== 1) {
            return n.children.length > 1;
        }
        if (n.children[0].uid !== null) {
            return true;
        }
    }
}

/**
 * A thread forest in RFC 5256's syntax: a node's children follow it, one as a plain number,
 * several each in parentheses; a dummy (no number) is just its children. Written into one
 * string as the tree is walked (no array and join per node: answers reach 10,000 messages),
 * with a stack of its own of what is still to write (nodes and closing parentheses), not by
 * recursion: a reply chain is as deep as anyone who can send mail makes it.
 */
function formatThreads(roots, number) {
    let out = '';
    // next to write last: a node, or text written as it is
    let stack = [];
    let enclosed = nodes => {
        for (let i = nodes.length - 1; i >= 0; i--) {
            stack.push(')', nodes[i], '(');
        }
    };
    enclosed(roots);
    while (stack.length) {
        let node = stack.pop();
        if (typeof node === 'string') {
            out += node;
            continue;
        }
        if (node.uid !== null) {
            out += number(node.uid);
            if (!nested(node)) {
                continue;
            }
            out += ' ';
        }
        if (node.children.length === 1) {
            stack.push(node.children[0]);
        } else {
            enclosed(node.children);
        }
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
