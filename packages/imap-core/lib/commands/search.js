'use strict';

const iconv = require('iconv-lite');
const imapHandler = require('../handler/imap-handler');
const imapTools = require('../imap-tools');

// RFC 4731 ESEARCH: what SEARCH RETURN (...) may ask for
const RETURN_OPTIONS = new Set(['MIN', 'MAX', 'ALL', 'COUNT']);

/**
 * `SEARCH RETURN (options) criteria`: the options asked for (ALL for an empty list) and the
 * criteria after them, or false options for a plain SEARCH. An unknown option throws (BAD).
 */
function returnOptionsOf(attributes) {
    let first = attributes[0];
    if (attributes.length < 2 || !first || first.type !== 'ATOM' || String(first.value).toUpperCase() !== 'RETURN' || !Array.isArray(attributes[1])) {
        return { options: false, criteria: attributes };
    }
    let options = new Set();
    for (let option of attributes[1]) {
        let name = option && typeof option.value === 'string' ? option.value.toUpperCase() : '';
        if (!RETURN_OPTIONS.has(name)) {
            throw new Error('Unknown search return option ' + (name || '()'));
        }
        options.add(name);
    }
    return { options: options.size ? options : new Set(['ALL']), criteria: attributes.slice(2) };
}

/** NO [BADCHARSET] naming the charsets a search string may be in. */
function badCharset() {
    return {
        response: 'NO',
        code: 'BADCHARSET (' + SEARCH_CHARSETS.join(' ') + ')',
        message: 'Unsupported charset'
    };
}

/**
 * Search criteria as the backend takes them ({query, terms}), from the parsed attributes. The
 * charset is `CHARSET x` in front of them (SEARCH) or given apart (SORT); `badCharset` is set
 * for one the bridge cannot read. Throws on a syntax error (BAD).
 */
function searchCriteria(attributes, charset, uidList) {
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
    getTerms(attributes);

    if (!charset) {
        charset = 'UTF-8';
        if (terms.length > 1 && String(terms[0]).toUpperCase() === 'CHARSET') {
            charset = String(terms[1]).toUpperCase();
        }
    }
    if (!SEARCH_CHARSETS.includes(charset)) {
        return { badCharset: true };
    }

    let parsed = parseQueryTerms(decodeTerms(terms, charset), uidList);
    if (parsed.query.length && parsed.query[0].key === 'charset') {
        parsed.query.shift();
        parsed.terms = parsed.terms.filter(term => term !== 'charset');
    }
    return parsed;
}

/** The `* ESEARCH` line (RFC 4731 3.1) for ascending numbers, with items in Dovecot's order. */
function esearchLine(tag, isUid, options, numbers, modseq) {
    let line = '* ESEARCH (TAG "' + tag + '")' + (isUid ? ' UID' : '');
    if (numbers.length) {
        if (options.has('MIN')) {
            line += ' MIN ' + numbers[0];
        }
        if (options.has('MAX')) {
            line += ' MAX ' + numbers[numbers.length - 1];
        }
        if (options.has('ALL')) {
            line += ' ALL ' + imapTools.packMessageRange(numbers);
        }
    }
    if (options.has('COUNT')) {
        line += ' COUNT ' + numbers.length;
    }
    if (modseq && numbers.length) {
        line += ' MODSEQ ' + modseq;
    }
    return line;
}

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

module.exports = {
    state: 'Selected',

    schema: false, // recursive, can't predefine

    handler(command, callback) {
        // Check if SEARCH method is set
        if (typeof this._server.onSearch !== 'function') {
            return callback(null, {
                response: 'NO',
                message: command.command + ' not implemented'
            });
        }

        let isUid = (command.command || '').toString().toUpperCase() === 'UID SEARCH' ? true : false;

        let returned;
        try {
            returned = returnOptionsOf([].concat(command.attributes || []));
        } catch (E) {
            return callback(E);
        }

        let parsed;
        try {
            parsed = searchCriteria(returned.criteria, null, this.selected.uidList);
        } catch (E) {
            return callback(E);
        }
        if (parsed.badCharset) {
            return callback(null, badCharset());
        }

        // mark CONDSTORE as enabled
        if (parsed.terms.indexOf('modseq') >= 0 && !this.selected.condstoreEnabled) {
            this.condstoreEnabled = this.selected.condstoreEnabled = true;
        }

        let logdata = {
            short_message: '[SEARCH]',
            _mail_action: 'search',
            _user: this.session.user.id.toString(),
            _mailbox: this.selected.mailbox,
            _sess: this.id,
            _query: JSON.stringify(parsed.query),
            _terms: JSON.stringify(parsed.terms)
        };
        this._server.onSearch(
            this.selected.mailbox,
            {
                query: parsed.query,
                terms: parsed.terms,
                isUid
            },
            this.session,
            (err, results) => {
                if (err) {
                    logdata._error = err.message;
                    logdata._code = err.code;
                    logdata._response = err.response;
                    this._server.loggelf(logdata);
                    return callback(null, imapTools.hookErrorResponse(err, {
                        response: 'NO',
                        code: 'TEMPFAIL'
                    }));
                }

                let matches = results.uidList;

                if (typeof matches === 'string') {
                    return callback(null, {
                        response: 'NO',
                        code: matches.toUpperCase()
                    });
                }

                let response = {
                    tag: '*',
                    command: 'SEARCH',
                    attributes: []
                };
                let numbers = [];

                if (Array.isArray(matches) && matches.length) {
                    matches.sort((a, b) => a - b);

                    // both lists ascend: one walk finds every sequence number (indexOf per match
                    // was quadratic, 10,000 matches in a 10,000-message folder took ~10 ms)
                    let uidList = this.selected.uidList;
                    let pos = 0;
                    matches.forEach(nr => {
                        if (!isUid) {
                            while (pos < uidList.length && uidList[pos] < nr) {
                                pos++;
                            }
                            if (pos < uidList.length && uidList[pos] === nr) {
                                numbers.push(pos + 1);
                            }
                        } else {
                            numbers.push(nr);
                        }
                    });
                    // one text node, not an atom per number: the compiler looks at the response's
                    // last character before each node, which copies the whole response string so
                    // far, so thousands of atoms cost time quadratic in the answer's length
                    if (numbers.length) {
                        response.attributes.push({
                            type: 'text',
                            value: numbers.join(' ')
                        });
                    }
                }

                let modseq = results.highestModseq && parsed.terms.indexOf('modseq') >= 0 ? results.highestModseq : false;

                if (returned.options) {
                    this.send(esearchLine(command.tag, isUid, returned.options, numbers, modseq));
                    return callback(null, {
                        response: 'OK'
                    });
                }

                // append (MODSEQ 123) for queries that include MODSEQ criteria
                if (modseq) {
                    response.attributes.push([
                        {
                            type: 'atom',
                            value: 'MODSEQ'
                        },
                        {
                            type: 'atom',
                            value: String(results.highestModseq)
                        }
                    ]);
                }

                this.send(imapHandler.compiler(response));

                return callback(null, {
                    response: 'OK'
                });
            }
        );
    },

    parseQueryTerms, // expose for testing
    // SORT (./sort.js) reads its criteria as SEARCH does
    searchCriteria
};

function parseQueryTerms(terms, uidList) {
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
            if (imapTools.validateSequence(term)) {
                // resolve sequence list to an array of UID values
                curTerm = ['uid', imapTools.getMessageRange(uidList, term, false)];
            } else {
                // no idea what the term is for
                throw new Error('Unknown search term ' + term.toUpperCase());
            }
        } else if (termCount) {
            for (let i = 0, len = termCount; i < len; i++) {
                if (termType[i] === 'expression') {
                    curTerm.push(getTerm(level + 1));
                } else if (termType[i] === 'sequence') {
                    if (!imapTools.validateSequence(terms[pos])) {
                        throw new Error('Invalid sequence set for ' + term.toUpperCase());
                    }
                    // resolve sequence list to an array of UID values
                    curTerm.push(imapTools.getMessageRange(uidList, terms[pos++], true));
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
