'use strict';

const searchUpdates = require('../search-updates');

/**
 * `CANCELUPDATE "tag" ...` (RFC 5267 4.3.5): no more ADDTO or REMOVEFROM for the search
 * contexts of those tags, one or more strings (RFC 5267 says quoted; Dovecot takes literals
 * too). As Dovecot answers: an atom is BAD, and a tag that has no context NO (the contexts
 * named before it are cancelled).
 */
module.exports = {
    state: 'Selected',

    schema: false,

    handler(command, callback) {
        let tags = [].concat(command.attributes || []);
        if (!tags.length || !tags.every(tag => tag && (tag.type === 'STRING' || tag.type === 'LITERAL'))) {
            return callback(new Error('CANCELUPDATE needs one or more tags as strings'));
        }
        if (!searchUpdates.cancelContexts(this.selected, tags.map(tag => String(tag.value)))) {
            return callback(null, { response: 'NO', message: 'Unknown tag' });
        }
        callback(null, { response: 'OK', message: 'Updates cancelled' });
    }
};
