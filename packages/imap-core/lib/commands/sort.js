'use strict';

const search = require('./search');

// RFC 5256 sort-key and RFC 5957's DISPLAYFROM and DISPLAYTO, each optionally preceded by REVERSE
const SORT_KEYS = ['ARRIVAL', 'CC', 'DATE', 'FROM', 'SIZE', 'SUBJECT', 'TO', 'DISPLAYFROM', 'DISPLAYTO'];

/** The parenthesised sort criteria as [{key, reverse}]; throws on anything else. */
function parseCriteria(list) {
    if (!Array.isArray(list) || !list.length) {
        throw new Error('SORT needs a parenthesised list of sort criteria');
    }
    let criteria = [];
    let reverse = false;
    list.forEach(element => {
        let key = String((element && element.type === 'ATOM' && element.value) || '').toUpperCase();
        if (key === 'REVERSE' && !reverse) {
            reverse = true;
        } else if (SORT_KEYS.includes(key)) {
            criteria.push({ key: key.toLowerCase(), reverse });
            reverse = false;
        } else {
            throw new Error('Invalid sort criterion ' + (key || '?'));
        }
    });
    if (reverse) {
        throw new Error('REVERSE must precede a sort key');
    }
    return criteria;
}

/**
 * SORT and UID SORT (RFC 5256): `SORT [RETURN (options)] (criteria) charset search-keys`, the
 * RETURN options as SEARCH's (ESORT, RFC 5267 3) answered in an ESEARCH response. The onSort
 * hook gets `{sort, query, terms, isUid}` (and `context` with UPDATE, see search.contextOption)
 * and answers the matching UIDs in sort order.
 */
module.exports = {
    state: 'Selected',

    schema: false,

    handler(command, callback) {
        let isUid = (command.command || '').toString().toUpperCase() === 'UID SORT';

        let sort, returns, attributes;
        try {
            ({ returns, attributes } = search.parseReturn(command.attributes, this, command.tag));
            let [list, charset, ...keys] = attributes;
            sort = parseCriteria(list);
            if (!charset || Array.isArray(charset) || !keys.length) {
                throw new Error('SORT needs a charset and search keys');
            }
            attributes = ['CHARSET', charset.value].concat(search.flattenTerms(keys));
        } catch (E) {
            return callback(E);
        }

        let done = search.savingCallback(this, returns, callback);
        let extra = Object.assign({ sort, isUid }, search.contextOption(returns, command.tag));
        search.runSearch(this, 'onSort', attributes, extra, done, (results, parsed) => {
            let numbers = results.uidList;
            if (!isUid) {
                let sequence = new Map(this.selected.uidList.map((uid, i) => [uid, i + 1]));
                numbers = numbers.map(uid => sequence.get(uid)).filter(nr => nr);
            }
            if (returns) {
                search.sendReturn(this, command.tag, isUid, returns, results, parsed, results.uidList, numbers, {
                    hook: 'onSort',
                    options: Object.assign({ query: parsed.query, terms: parsed.terms }, extra),
                    sort: true
                });
                return;
            }
            this.send(search.numbersResponse('SORT', numbers.join(' '), search.modseqAttributes(results, parsed)));
        });
    }
};
