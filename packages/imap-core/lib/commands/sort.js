'use strict';

const imapTools = require('../imap-tools');
const { searchCriteria } = require('./search');

// RFC 5256 3: the sort keys
const SORT_KEYS = new Set(['ARRIVAL', 'CC', 'DATE', 'FROM', 'SIZE', 'SUBJECT', 'TO']);

/** The sort program `(REVERSE DATE SUBJECT)` as [{key, reverse}]; throws on a syntax error. */
function sortProgram(list) {
    if (!Array.isArray(list) || !list.length) {
        throw new Error('SORT needs a parenthesized list of sort keys');
    }
    let program = [];
    let reverse = false;
    for (let element of list) {
        let name = element && typeof element.value === 'string' ? element.value.toUpperCase() : '';
        if (name === 'REVERSE' && !reverse) {
            reverse = true;
            continue;
        }
        if (!SORT_KEYS.has(name)) {
            throw new Error('Unknown sort key ' + (name || '()'));
        }
        program.push({ key: name.toLowerCase(), reverse });
        reverse = false;
    }
    if (reverse) {
        throw new Error('REVERSE must precede a sort key');
    }
    return program;
}

/**
 * SORT / UID SORT (RFC 5256): `SORT (keys) charset criteria`. The backend's onSort gets the
 * program and the criteria as onSearch gets them and answers the matching UIDs in order.
 */
module.exports = {
    state: 'Selected',

    schema: false,

    handler(command, callback) {
        if (typeof this._server.onSort !== 'function') {
            return callback(null, {
                response: 'NO',
                message: command.command + ' not implemented'
            });
        }

        let isUid = (command.command || '').toString().toUpperCase() === 'UID SORT';
        let attributes = [].concat(command.attributes || []);
        let charset = attributes[1] && typeof attributes[1].value === 'string' ? attributes[1].value.toUpperCase() : '';

        let program;
        let parsed;
        try {
            program = sortProgram(attributes[0]);
            if (!charset || attributes.length < 3) {
                throw new Error('SORT needs a charset and search criteria');
            }
            parsed = searchCriteria(attributes.slice(2), charset, this.selected.uidList);
        } catch (E) {
            return callback(E);
        }
        if (parsed.badCharset) {
            return callback(null, {
                response: 'NO',
                code: 'BADCHARSET (UTF-8 US-ASCII ISO-8859-1 WINDOWS-1252)',
                message: 'Unsupported charset'
            });
        }

        this._server.onSort(
            this.selected.mailbox,
            {
                sort: program,
                query: parsed.query,
                terms: parsed.terms,
                isUid
            },
            this.session,
            (err, results) => {
                if (err) {
                    return callback(
                        null,
                        imapTools.hookErrorResponse(err, {
                            response: 'NO',
                            code: 'TEMPFAIL'
                        })
                    );
                }
                if (typeof results.uidList === 'string') {
                    return callback(null, {
                        response: 'NO',
                        code: results.uidList.toUpperCase()
                    });
                }

                let numbers = results.uidList;
                if (!isUid) {
                    let seq = new Map(this.selected.uidList.map((uid, i) => [uid, i + 1]));
                    numbers = numbers.map(uid => seq.get(uid)).filter(nr => nr);
                }
                this.send('* SORT' + (numbers.length ? ' ' + numbers.join(' ') : ''));
                return callback(null, {
                    response: 'OK'
                });
            }
        );
    }
};
