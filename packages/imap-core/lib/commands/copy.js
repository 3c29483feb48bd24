'use strict';

const imapTools = require('../imap-tools');

module.exports = {
    state: 'Selected',

    schema: [
        {
            name: 'range',
            type: 'sequence'
        },
        {
            name: 'path',
            type: 'string'
        }
    ],

    handler(command, callback) {
        let cmd = (command.command || '').toString().toUpperCase();

        // Check if COPY method is set
        if (typeof this._server.onCopy !== 'function') {
            return callback(null, {
                response: 'NO',
                message: cmd + ' not implemented'
            });
        }

        let range = (command.attributes[0] && command.attributes[0].value) || '';
        let path = Buffer.from((command.attributes[1] && command.attributes[1].value) || '', 'binary').toString();
        path = imapTools.normalizeMailbox(path, !this.acceptUTF8Enabled);

        if (!path) {
            return callback(new Error('Invalid mailbox argument for ' + cmd));
        }

        if (!imapTools.validateSequence(range, true)) {
            return callback(new Error('Invalid sequence set for ' + cmd));
        }

        let messages = imapTools.getMessageRange(this.selected.uidList, range, cmd === 'UID COPY', this.selected.searchResult);

        let logdata = {
            short_message: '[COPY]',
            _mail_action: 'copy',
            _destination: path,
            _user: this.session.user.id.toString(),
            _mailbox: this.selected.mailbox,
            _mailbox_path: this.selected.path,
            _sess: this.id,
            _message_count: messages.length
        };

        this._server.onCopy(
            this,
            this.selected.mailbox,
            {
                destination: path,
                messages
            },
            this.session,
            (err, success, info) => {
                Object.keys(info || {}).forEach(key => {
                    let vkey = '_' + key.replace(/[A-Z]+/g, c => '_' + c.toLowerCase());
                    if (vkey === '_id') {
                        vkey = '_copy_id';
                    }

                    let value = info[key];
                    if (['sourceUid', 'destinationUid'].includes(key)) {
                        value = imapTools.packMessageRange(value);
                    }
                    logdata[vkey] = value;
                });

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
                this._server.loggelf(logdata);

                // RFC 4315 4: a server that cannot tell the new UIDs (the messages were handed
                // to another system, not placed here) sends no COPYUID rather than an empty one
                let knowsUids = info && Array.isArray(info.destinationUid) && info.destinationUid.length > 0;
                let code =
                    typeof success === 'string'
                        ? success.toUpperCase()
                        : !knowsUids
                        ? false
                        : 'COPYUID ' +
                          info.uidValidity +
                          ' ' +
                          imapTools.packMessageRange(info.sourceUid) +
                          ' ' +
                          imapTools.packMessageRange(info.destinationUid);

                callback(null, {
                    response: success === true ? 'OK' : 'NO',
                    code
                });
            }
        );
    }
};
