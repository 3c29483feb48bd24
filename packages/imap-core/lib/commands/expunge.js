'use strict';

const imapTools = require('../imap-tools');

module.exports = {
    state: 'Selected',

    handler(command, callback) {
        // Check if EXPUNGE method is set
        if (typeof this._server.onExpunge !== 'function') {
            return callback(null, {
                response: 'NO',
                message: 'EXPUNGE not implemented'
            });
        }

        // Do nothing if in read only mode
        if (this.selected.readOnly) {
            return callback(null, {
                response: 'OK'
            });
        }

        let logdata = {
            short_message: '[EXPUNGE]',
            _mail_action: 'expunge',
            _mailbox: this.selected.mailbox,
            _mailbox_path: this.selected.path,
            _user: this.session.user.id.toString(),
            _sess: this.id
        };

        this._server.onExpunge(
            this.selected.mailbox,
            {
                isUid: false
            },
            this.session,
            (err, success) => {
                if (err) {
                    logdata._error = err.message;
                    logdata._code = err.code;
                    logdata._response = err.response;
                    this._server.loggelf(logdata);
                    // do not return actual error to user
                    return callback(null, imapTools.hookErrorResponse(err, {
                        response: 'NO',
                        code: 'TEMPFAIL'
                    }));
                }

                logdata._response = success;
                //this._server.loggelf(logdata);

                callback(null, {
                    response: success === true ? 'OK' : 'NO',
                    code: typeof success === 'string' ? success.toUpperCase() : false
                });
            }
        );
    }
};
