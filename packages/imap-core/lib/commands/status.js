'use strict';

const imapTools = require('../imap-tools');
const imapHandler = require('../handler/imap-handler');
const { parseStatusItems, enableCondstoreFor, statusResponse } = require('../status-items');

// tag STATUS "mailbox" (UNSEEN UIDNEXT)

module.exports = {
    state: ['Authenticated', 'Selected'],

    schema: [
        {
            name: 'path',
            type: 'string'
        },
        {
            name: 'query',
            type: 'array'
        }
    ],

    handler(command, callback) {
        let path = Buffer.from((command.attributes[0] && command.attributes[0].value) || '', 'binary').toString();
        let query = command.attributes[1] && command.attributes[1];

        // Check if STATUS method is set
        if (typeof this._server.onStatus !== 'function') {
            return callback(null, {
                response: 'NO',
                message: 'STATUS not implemented'
            });
        }

        if (!path) {
            // nothing to check for if mailbox is not defined
            return callback(null, {
                response: 'NO',
                code: 'CANNOT',
                message: 'No folder name given'
            });
        }

        let statusQuery = parseStatusItems(query);
        if (typeof statusQuery === 'string') {
            return callback(null, {
                response: 'BAD',
                message: statusQuery
            });
        }

        path = imapTools.normalizeMailbox(path, !this.acceptUTF8Enabled);

        enableCondstoreFor(this, statusQuery);

        let logdata = {
            short_message: '[STATUS]',
            _mail_action: 'status',
            _user: this.session.user.id.toString(),
            _path: path,
            _sess: this.id
        };
        // the hook learns the items, so it computes only those asked for (SIZE may cost a sync)
        this._server.onStatus(path, statusQuery, this.session, (err, data) => {
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

            if (typeof data === 'string') {
                return callback(null, {
                    response: 'NO',
                    code: data.toUpperCase()
                });
            }

            if (data) {
                // reuse the mailbox declaration from client command
                this.send(imapHandler.compiler(statusResponse(command.attributes[0], statusQuery, data)));
            }

            callback(null, {
                response: 'OK'
            });
        });
    }
};
