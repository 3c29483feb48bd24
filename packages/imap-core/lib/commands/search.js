'use strict';

const iconv = require('iconv-lite');
const imapHandler = require('../handler/imap-handler');
const imapTools = require('../imap-tools');
const { sequenceSet } = imapTools;
const searchUpdates = require('../search-updates');

// Max IMAP number is an unsigned 32-bit value
const MAX_IMAP_NUMBER = 0xffffffff;

// the charsets a search string may be given in (RFC 3501 6.4.4); UTF-8 when none is named
const SEARCH_CHARSETS = ['UTF-8', 'US-ASCII', 'ISO-8859-1', 'WINDOWS-1252'];

/**
 * The parser gives every string as its bytes (a binary string); a search string is text in
 * the CHARSET the command named. Invalid UTF-8 is a syntax error, as in Dovecot.
 */
function decodeTerms(terms, charset) {
    return terms.map(term => {
        if (typeof term !== 'string' || !/[\x80-\xff]/.test(term)) {
            return term;
        }
        let bytes = Buffer.from(term, 'binary');
        let text = iconv.decode(bytes, charset === 'US-ASCII' ? 'UTF-8' : charset);
        if (charset !== 'ISO-8859-1' && charset !== 'WINDOWS-1252' && !Buffer.from(text, 'utf-8').equals(bytes)) {
            throw new Error('Invalid UTF-8 in search string');
        }
        return text;
    });
}

/** A command's arguments as one list of search terms (parenthesised keys flattened). */
function flattenTerms(attributes) {
    let terms = [];
    let getTerms = elements => {
        elements.forEach(element => {
            if (Array.isArray(element)) {
                return getTerms(element);
            }
            // NIL is the parser's null; as a search argument it is the atom "NIL" (RFC 3501 astring)
            terms.push(element === null ? 'NIL' : element.value);
        });
    };
    getTerms([].concat(attributes || []));
    return terms;
}

const BADCHARSET_RESPONSE = {
    response: 'NO',
    code: 'BADCHARSET (' + SEARCH_CHARSETS.join(' ') + ')',
    message: 'Unsupported charset'
};

/**
 * Search terms, led by an optional CHARSET, as a query with its strings decoded from that
 * charset: what SEARCH, SORT and THREAD evaluate. `{badCharset: true}` for a charset not
 * supported; a syntax error throws.
 */
function parseSearchKeys(terms, uidList, saved) {
    let charset = 'UTF-8';
    if (terms.length > 1 && String(terms[0]).toUpperCase() === 'CHARSET') {
        charset = String(terms[1]).toUpperCase();
        if (!SEARCH_CHARSETS.includes(charset)) {
            return { badCharset: true };
        }
    }

    let parsed = parseQueryTerms(decodeTerms(terms, charset), uidList, saved);

    if (parsed.query.length && parsed.query[0].key === 'charset') {
        parsed.query.shift();
        parsed.terms = parsed.terms.filter(term => term !== 'charset');
    }
    if (!parsed.query.length) {
        throw new Error('Missing search keys');
    }
    return parsed;
}

/**
 * Parses search terms and runs them through a search hook (onSearch, onSort, onThread): the
 * hook gets `{query, terms, isUid}` and `extra`; its results go to `answer(results, parsed)`,
 * which writes the untagged response, and the command ends OK. Parse errors are BAD, an
 * unsupported charset NO [BADCHARSET], a hook error or code NO.
 */
function runSearch(connection, hookName, terms, extra, callback, answer) {
    if (typeof connection._server[hookName] !== 'function') {
        return callback(null, {
            response: 'NO',
            message: 'Not implemented'
        });
    }

    let parsed;
    try {
        parsed = parseSearchKeys(terms, connection.selected.uidList, connection.selected.searchResult);
    } catch (E) {
        return callback(E);
    }
    if (parsed.badCharset) {
        return callback(null, BADCHARSET_RESPONSE);
    }

    // mark CONDSTORE as enabled
    if (parsed.terms.indexOf('modseq') >= 0) {
        connection.enableCondstore();
    }

    connection._server[hookName](
        connection.selected.mailbox,
        Object.assign({ query: parsed.query, terms: parsed.terms }, extra),
        connection.session,
        (err, results) => {
            if (err) {
                return callback(null, imapTools.hookErrorResponse(err, {
                    response: 'NO',
                    code: 'TEMPFAIL'
                }));
            }
            let code = typeof results === 'string' ? results : results.uidList || results.threads;
            if (typeof code === 'string') {
                return callback(null, {
                    response: 'NO',
                    code: code.toUpperCase()
                });
            }

            answer(results, parsed);

            return callback(null, {
                response: 'OK'
            });
        }
    );
}

/**
 * The results whose MODSEQ an ESEARCH answer carries: when it does not concern every match
 * (returnedMatches), the highest MODSEQ of the messages it returns, when the hook gave each
 * match's MODSEQ (`results.modseqs`, UID to MODSEQ); else the highest of all (RFC 7162 3.1.5).
 */
function returnedModseq(results, returns, matches) {
    let returned = results.modseqs && matches.length && returnedMatches(returns, matches);
    if (!returned) {
        return results;
    }
    // none returned (a PARTIAL past the end): no MODSEQ
    return { highestModseq: Math.max(0, ...returned.map(uid => results.modseqs.get(uid) || 0)) };
}

/** `(MODSEQ n)` for an answer to a query with a MODSEQ key (RFC 7162 3.1.5), else nothing. */
function modseqAttributes(results, parsed) {
    if (!results.highestModseq || parsed.terms.indexOf('modseq') < 0) {
        return [];
    }
    return [
        [
            {
                type: 'atom',
                value: 'MODSEQ'
            },
            {
                type: 'atom',
                value: String(results.highestModseq)
            }
        ]
    ];
}

/**
 * An untagged response whose numbers go as one text node, not an atom per number: the compiler
 * looks at the response's last character before each node, which copies the whole response
 * string so far, so thousands of atoms cost time quadratic in the answer's length.
 */
function numbersResponse(command, text, more) {
    return imapHandler.compiler({
        tag: '*',
        command,
        attributes: (text ? [{ type: 'text', value: text }] : []).concat(more || [])
    });
}

// RFC 4731 search-return-opt, SAVE (RFC 5182), PARTIAL (RFC 5267 4.4) and UPDATE (4.3)
const RETURN_OPTIONS = ['MIN', 'MAX', 'COUNT', 'ALL', 'SAVE', 'PARTIAL', 'UPDATE'];

/**
 * `PARTIAL low:high` (RFC 5267 4.4): two positions from 1, in either order, as [low, high];
 * anything else (`1`, `1:*`, `0:2`) throws.
 */
function parsePartialRange(element) {
    let match = /^(\d+):(\d+)$/.exec(String((element && !Array.isArray(element) && element.value) || ''));
    let range = match ? [Number(match[1]), Number(match[2])] : [];
    if (!match || !range.every(n => n > 0 && n <= MAX_IMAP_NUMBER)) {
        throw new Error('PARTIAL needs a range of positions');
    }
    return range.sort((a, b) => a - b);
}

/**
 * `RETURN (options)` as a set of option names, PARTIAL's range as the set's `partial`;
 * `RETURN ()` is `RETURN (ALL)`. CONTEXT, a hint that the result may be asked again (RFC 5267
 * 4.2), changes nothing here, as in Dovecot; PARTIAL comes at most once and not with ALL.
 * UPDATE alone answers no ALL, as Dovecot answers it.
 */
function parseReturnOptions(list) {
    if (!Array.isArray(list)) {
        throw new Error('RETURN needs a parenthesised list of options');
    }
    let options = new Set();
    for (let i = 0; i < list.length; i++) {
        let element = list[i];
        let option = String((element && element.type === 'ATOM' && element.value) || '').toUpperCase();
        if (option === 'CONTEXT') {
            continue;
        }
        if (!RETURN_OPTIONS.includes(option)) {
            throw new Error('Unknown RETURN option ' + (option || '?'));
        }
        if (option === 'UPDATE' && options.has('UPDATE')) {
            // the one option Dovecot refuses twice
            throw new Error('RETURN has UPDATE twice');
        }
        if (option === 'PARTIAL') {
            if (options.has('PARTIAL')) {
                throw new Error('PARTIAL can be used only once');
            }
            options.partial = parsePartialRange(list[++i]);
        }
        options.add(option);
    }
    if (options.has('PARTIAL') && options.has('ALL')) {
        throw new Error('PARTIAL conflicts with ALL');
    }
    if (!options.size) {
        options.add('ALL');
    }
    return options;
}

/**
 * The matches an answer returns when it does not concern them all (neither ALL nor COUNT): the
 * first and last for MIN and MAX, those at PARTIAL's positions (RFC 5267 4.4), in the answer's
 * order; null when it concerns them all.
 */
function returnedMatches(options, uids) {
    if (options.has('ALL') || options.has('COUNT') || !(options.has('MIN') || options.has('MAX') || options.has('PARTIAL'))) {
        return null;
    }
    let returned = [].concat(options.has('MIN') ? uids.slice(0, 1) : [], options.has('MAX') ? uids.slice(-1) : []);
    if (options.has('PARTIAL')) {
        returned = returned.concat(uids.slice(options.partial[0] - 1, options.partial[1]));
    }
    return [...new Set(returned)];
}

/**
 * What RETURN (SAVE) keeps of the matching UIDs (RFC 5182 2.4): the matches the answer
 * returns (returnedMatches) when it does not concern them all, as Dovecot keeps them.
 */
function savedResult(options, uids) {
    return returnedMatches(options, uids) || uids;
}

/**
 * `* ESEARCH (TAG "t") [UID] [MIN n] [MAX n] [ALL set] [COUNT n]` (RFC 4731) for ascending
 * numbers: MIN, MAX and ALL only when something matched, COUNT always; MODSEQ last (RFC 7162).
 */
function esearchResponse(tag, isUid, options, numbers, modseq) {
    let attributes = [[{ type: 'atom', value: 'TAG' }, { type: 'string', value: tag }]];
    let item = (name, value) => attributes.push({ type: 'atom', value: name }, { type: 'atom', value: String(value) });
    if (isUid) {
        attributes.push({ type: 'atom', value: 'UID' });
    }
    if (numbers.length && options.has('MIN')) {
        item('MIN', numbers[0]);
    }
    if (numbers.length && options.has('MAX')) {
        item('MAX', numbers[numbers.length - 1]);
    }
    if (numbers.length && options.has('ALL')) {
        item('ALL', sequenceSet(numbers));
    }
    if (options.has('PARTIAL')) {
        // the numbers at those positions, in the answer's order, or NIL when none is (RFC 5267 4.4)
        let [low, high] = options.partial;
        let part = numbers.slice(low - 1, high);
        attributes.push({ type: 'atom', value: 'PARTIAL' }, [
            { type: 'atom', value: low + ':' + high },
            { type: 'atom', value: part.length ? sequenceSet(part) : 'NIL' }
        ]);
    }
    if (options.has('COUNT')) {
        item('COUNT', numbers.length);
    }
    [].concat(...modseq).forEach(node => attributes.push(node));
    return { tag: '*', command: 'ESEARCH', attributes };
}

/**
 * A command's arguments led by an optional `RETURN (options)` (SEARCH, and SORT with ESORT,
 * RFC 5267 3): `returns` is the options' set, or false without RETURN; `attributes` the rest.
 * UPDATE with the `tag` of a context the connection keeps throws.
 */
function parseReturn(commandAttributes, connection, tag) {
    let attributes = [].concat(commandAttributes || []);
    if (attributes.length > 1 && attributes[0] && String(attributes[0].value).toUpperCase() === 'RETURN') {
        let returns = parseReturnOptions(attributes[1]);
        if (returns.has('UPDATE') && searchUpdates.hasContext(connection.selected, tag)) {
            // a tag names one context: its reuse is refused (RFC 5267 4.3)
            throw new Error('Duplicate search update tag');
        }
        return { returns, attributes: attributes.slice(2) };
    }
    return { returns: false, attributes };
}

/**
 * With UPDATE, the hook's options carry `context`: one object for the context's life, given to
 * its first evaluation and to every one after (RFC 5267 4.3), so that the host can keep what
 * a query's evaluation learnt for the next one (a WeakMap on it lets that go with the context).
 */
function contextOption(returns, tag) {
    return returns && returns.has('UPDATE') ? { context: { tag } } : {};
}

/**
 * The command's callback: when it saves its result, a NO leaves $ empty, a BAD leaves it as it
 * was (RFC 5182 2.1).
 */
function savingCallback(connection, returns, callback) {
    if (!returns || !returns.has('SAVE')) {
        return callback;
    }
    return (err, response) => {
        if (!err && response.response === 'NO') {
            connection.selected.searchResult = [];
        }
        callback(err, response);
    };
}

/**
 * Answers a RETURN: `uids` are the matches and `numbers` the same as the client is told them,
 * both in the answer's order (ascending for SEARCH, the sort order for SORT, where MIN and MAX
 * are the first and last in that order and ALL's ranges only join ascending runs, RFC 5267 3,
 * as Dovecot answers). SAVE keeps the UIDs ascending; SAVE alone answers nothing. With
 * UPDATE, `context` (the hook and its options, and `sort` for SORT) lets the result be
 * evaluated again as the mailbox changes (RFC 5267 4.3, lib/search-updates.js).
 */
function sendReturn(connection, tag, isUid, returns, results, parsed, uids, numbers, context) {
    if (returns.has('UPDATE')) {
        // the result is kept whole, whatever the answer returns of it, as Dovecot keeps it
        searchUpdates.addContext(connection, Object.assign({ tag, isUid, uids: uids.slice() }, context));
    }
    if (returns.has('SAVE')) {
        connection.selected.searchResult = savedResult(returns, uids)
            .slice()
            .sort((a, b) => a - b);
        if (returns.size === 1) {
            // SAVE alone answers no ESEARCH (RFC 5182 2.4)
            return;
        }
    }
    let modseq = modseqAttributes(returnedModseq(results, returns, uids), parsed);
    connection.send(imapHandler.compiler(esearchResponse(tag, isUid, returns, numbers, modseq)));
}

module.exports = {
    state: 'Selected',

    schema: false, // recursive, can't predefine

    handler(command, callback) {
        let isUid = (command.command || '').toString().toUpperCase() === 'UID SEARCH' ? true : false;

        let returns, attributes;
        try {
            ({ returns, attributes } = parseReturn(command.attributes, this, command.tag));
        } catch (E) {
            return callback(E);
        }

        let extra = Object.assign({ isUid }, contextOption(returns, command.tag));
        runSearch(this, 'onSearch', flattenTerms(attributes), extra, savingCallback(this, returns, callback), (results, parsed) => {
            let matches = results.uidList.slice().sort((a, b) => a - b);
            let numbers = isUid ? matches : ascendingSequenceNumbers(this.selected.uidList, matches);
            if (!returns) {
                this.send(numbersResponse('SEARCH', numbers.join(' '), modseqAttributes(results, parsed)));
                return;
            }
            sendReturn(this, command.tag, isUid, returns, results, parsed, matches, numbers, {
                hook: 'onSearch',
                options: Object.assign({ query: parsed.query, terms: parsed.terms }, extra)
            });
        });
    },

    parseQueryTerms, // expose for testing
    flattenTerms,
    parseReturn,
    contextOption,
    savingCallback,
    sendReturn,
    runSearch,
    modseqAttributes,
    numbersResponse
};

/**
 * The sequence numbers of ascending UIDs: both lists ascend, so one walk finds every one
 * (indexOf per match was quadratic, 10,000 matches in a 10,000-message folder took ~10 ms).
 */
function ascendingSequenceNumbers(uidList, uids) {
    let pos = 0;
    let numbers = [];
    uids.forEach(nr => {
        while (pos < uidList.length && uidList[pos] < nr) {
            pos++;
        }
        if (pos < uidList.length && uidList[pos] === nr) {
            numbers.push(pos + 1);
        }
    });
    return numbers;
}


function isFixedRange(value) {
    value = (value || '').toString();
    return value.indexOf(':') >= 0 && value.indexOf(',') < 0;
}

function getWithinTargetDate(interval) {
    return new Date(Math.floor(Date.now() / 1000) * 1000 - interval * 1000);
}

function parseQueryTerms(terms, uidList, saved) {
    terms = [].concat(terms || []);

    let pos = 0;
    let term;
    let returnTerms = [];
    let parsed = {
        terms: []
    };

    let getTerm = level => {
        level = level || 0;
        if (pos >= terms.length) {
            return undefined; // eslint-disable-line no-undefined
        }

        let term = terms[pos++];
        // RFC 3501 6.4.4: CHARSET may only precede the search keys; elsewhere it is a syntax error
        if (term.toLowerCase() === 'charset' && pos !== 1) {
            throw new Error('CHARSET must come before the search keys');
        }
        let termType = imapTools.searchSchema[term.toLowerCase()];
        let termCount = termType && termType.length;
        let curTerm = [term.toLowerCase()];

        // MODSEQ is special case as it includes 2 optional arguments
        // If the next argument is a number then there is only one argument,
        // otherwise there is 3 arguments
        if (curTerm[0] === 'modseq') {
            termType = isNaN(terms[pos]) ? termType[0] : termType[1];
            termCount = termType.length;
        }

        if (!termType) {
            // try if it is a sequence set
            if (imapTools.validateSequence(term, true)) {
                // resolve sequence list to an array of UID values
                curTerm = ['uid', imapTools.getMessageRange(uidList, term, false, saved)];
            } else {
                // no idea what the term is for
                throw new Error('Unknown search term ' + term.toUpperCase());
            }
        } else if (termCount) {
            for (let i = 0, len = termCount; i < len; i++) {
                if (termType[i] === 'expression') {
                    curTerm.push(getTerm(level + 1));
                } else if (termType[i] === 'sequence') {
                    if (!imapTools.validateSequence(terms[pos], true)) {
                        throw new Error('Invalid sequence set for ' + term.toUpperCase());
                    }
                    // resolve sequence list to an array of UID values
                    {
                        let sequence = terms[pos++];
                        let messageRange = imapTools.getMessageRange(uidList, sequence, true, saved);
                        if (isFixedRange(sequence)) {
                            messageRange.isContiguous = true;
                        }
                        curTerm.push(messageRange);
                    }
                } else {
                    curTerm.push(terms[pos++]);
                }
            }
        }

        if (imapTools.searchMapping.hasOwnProperty(curTerm[0])) {
            curTerm = normalizeTerm(curTerm, imapTools.searchMapping[curTerm[0]]);
        }

        // return multiple values at once, should be already formatted
        if (typeof curTerm[0] === 'object') {
            return curTerm;
        }

        // keep a list of used terms
        if (parsed.terms.indexOf(curTerm[0]) < 0) {
            parsed.terms.push(curTerm[0]);
        }

        let response = {
            key: curTerm[0]
        };

        switch (response.key) {
            case 'not':
                // make sure not is not an array, instead return several 'not' expressions
                response = [].concat(curTerm[1] || []).map(val => ({
                    key: 'not',
                    value: val
                }));

                if (response.length === 1) {
                    response = response[0];
                }

                break;

            case 'or':
                // ensure that value is always an array
                response.value = [].concat(curTerm.slice(1) || []);
                break;

            case 'header':
                response.header = (curTerm[1] || '').toString().toLowerCase();
                response.value = (curTerm[2] || '').toString(); // empty header value means that the header key must be present
                break;

            case 'date':
            case 'internaldate':
                {
                    let dateval = (curTerm[2] || '').toString();
                    if (!imapTools.validateSearchDate(dateval)) {
                        throw new Error('Invalid date argument for ' + term.toUpperCase());
                    }
                    response.operator = curTerm[1];
                    response.value = dateval;
                }
                break;

            case 'size':
                if (isNaN(curTerm[2])) {
                    throw new Error('Invalid size argument for ' + response.key);
                }
                response.operator = curTerm[1];
                response.value = Number(curTerm[2]) || 0;
                break;

            case 'modseq':
                if (isNaN(curTerm[curTerm.length - 1])) {
                    throw new Error('Invalid MODSEQ argument');
                }
                response.value = Number(curTerm[curTerm.length - 1]) || 0;
                break;

            case 'older':
            case 'younger':
                {
                    let interval = (curTerm[1] || '').toString();
                    if (!/^[1-9]\d*$/.test(interval)) {
                        throw new Error('Invalid interval argument for ' + term.toUpperCase());
                    }
                    interval = Number(interval);
                    if (!Number.isSafeInteger(interval) || interval > MAX_IMAP_NUMBER) {
                        throw new Error('Invalid interval argument for ' + term.toUpperCase());
                    }

                    response.key = 'internaldate';
                    response.operator = curTerm[0] === 'older' ? '<=' : '>=';
                    response.value = getWithinTargetDate(interval);
                }
                break;

            default:
                if (curTerm.length) {
                    response.value = curTerm.length > 2 ? curTerm.slice(1) : curTerm[1];
                }
        }

        return response;
    };

    while (typeof (term = getTerm()) !== 'undefined') {
        if (Array.isArray(term)) {
            // flatten arrays
            returnTerms = returnTerms.concat(term);
        } else {
            returnTerms.push(term);
        }
    }

    parsed.terms.sort();
    parsed.query = returnTerms;

    return parsed;
}

function normalizeTerm(term, mapping) {
    let flags;

    let result = [mapping.key].concat(mapping.value.map(val => (val === '$1' ? term[1] : val)));

    if (result[0] === 'flag') {
        flags = [];
        result.forEach((val, i) => {
            if (i && i % 2 !== 0) {
                flags.push({
                    key: 'flag',
                    value: val,
                    exists: !!result[i + 1]
                });
            }
        });
        return flags;
    }

    return result;
}
