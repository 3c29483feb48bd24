'use strict';

const imapHandler = require('../handler/imap-handler');
const { isObjectId } = require('../object-ids');
const { parseQresyncParameter, uidsInSet, vanishedLine } = require('../qresync');
const imapTools = require('../imap-tools');

// tag SELECT "mailbox"
// tag EXAMINE "mailbox"

module.exports = {
    state: ['Authenticated', 'Selected'],

    schema: [
        {
            name: 'mailbox',
            type: 'string'
        },
        {
            name: 'extensions',
            type: 'array',
            optional: true
        }
    ],

    handler(command, callback) {
        let path = Buffer.from((command.attributes[0] && command.attributes[0].value) || '', 'binary').toString();
        path = imapTools.normalizeMailbox(path, !this.acceptUTF8Enabled);

        // select parameters (RFC 4466): CONDSTORE (RFC 7162 3.1.8), QRESYNC (...) (3.2.5)
        let qresync = null;
        let params = [].concat(command.attributes[1] || []);
        for (let i = 0; i < params.length; i++) {
            let name = Array.isArray(params[i]) ? '' : ((params[i] && params[i].value) || '').toString().toUpperCase();
            if (name === 'CONDSTORE') {
                this.condstoreEnabled = true;
            } else if (name === 'QRESYNC' && this.qresyncEnabled) {
                qresync = parseQresyncParameter(params[++i]);
                if (qresync.error) {
                    return callback(null, { response: 'BAD', message: qresync.error });
                }
            } else {
                return callback(null, {
                    response: 'BAD',
                    message: name === 'QRESYNC' ? 'QRESYNC is not enabled' : 'Unknown select parameter'
                });
            }
        }

        if (typeof this._server.onOpen !== 'function') {
            return callback(null, {
                response: 'NO',
                message: command.command + ' not implemented'
            });
        }

        if (!path) {
            // nothing to check for if mailbox is not defined
            return callback(null, {
                response: 'NO',
                code: 'NONEXISTENT'
            });
        }

        let logdata = {
            short_message: '[' + (command.command || '').toString().toUpperCase() + ']',
            _mail_action: (command.command || '').toString().toLowerCase(),
            _user: this.session.user.id.toString(),
            _path: path,
            _sess: this.id
        };

        // the hook may treat EXAMINE differently (RFC 3501 6.3.2: it changes no per-user state,
        // so it must not take \Recent away from other sessions)
        if (this.selected) {
            // RFC 7162 3.2.11: what follows is no longer about the mailbox selected before
            this.send('* OK [CLOSED] Previous mailbox closed');
        }

        this.session.opening = { readOnly: (command.command || '').toString().toUpperCase() === 'EXAMINE', qresync };
        this._server.onOpen(path, this.session, (err, mailboxData) => {
            this.session.opening = null;
            if (err) {
                this.session.selected = this.selected = false;
                this.state = 'Authenticated';

                logdata._error = err.message;
                logdata._code = err.code;
                logdata._response = err.response;
                this._server.loggelf(logdata);
                return callback(null, imapTools.hookErrorResponse(err, {
                    response: 'NO',
                    code: 'TEMPFAIL'
                }));
            }

            if (!mailboxData || typeof mailboxData === 'string') {
                this.session.selected = this.selected = false;
                this.state = 'Authenticated';
                return callback(null, {
                    response: 'NO',
                    code: typeof mailboxData === 'string' ? mailboxData : 'NONEXISTENT'
                });
            }

            // Set current state as selected
            this.session.selected = this.selected = {
                modifyIndex: mailboxData.modifyIndex,
                uidList: mailboxData.uidList,
                notifications: [],
                condstoreEnabled: this.condstoreEnabled,
                readOnly: (command.command || '').toString().toUpperCase() === 'EXAMINE' ? true : false,
                mailbox: mailboxData._id,
                path
            };
            this.state = 'Selected';

            let flagList = imapTools.systemFlagsFormatted.concat(mailboxData.flags || []);
            // the FLAGS the client was told; keywords a response shows later are added to it
            this.selected.flags = flagList;

            // * FLAGS (\Answered \Flagged \Draft \Deleted \Seen)
            // * OK [PERMANENTFLAGS (\Answered \Flagged \Draft \Deleted \Seen \*)] Flags permitted
            imapTools.flagsResponses(flagList).forEach(response => this.send(imapHandler.compiler(response)));

            // * OK [UIDVALIDITY 123] UIDs valid
            this.send(
                imapHandler.compiler({
                    tag: '*',
                    command: 'OK',
                    attributes: [
                        {
                            type: 'section',
                            section: [
                                {
                                    type: 'atom',
                                    value: 'UIDVALIDITY'
                                },
                                {
                                    type: 'atom',
                                    value: String(Number(mailboxData.uidValidity) || 1)
                                }
                            ]
                        },
                        {
                            type: 'text',
                            value: 'UIDs valid'
                        }
                    ]
                })
            );

            // * 0 EXISTS
            this.send('* ' + mailboxData.uidList.length + ' EXISTS');

            // * 0 RECENT (the backend says how many messages are \Recent in this session)
            this.selected.recentCount = Number(mailboxData.recent) || 0;
            this.send('* ' + this.selected.recentCount + ' RECENT');

            // * OK [UNSEEN 12] (RFC 3501 6.3.1: the sequence number of the first unseen message, if any)
            if (Number(mailboxData.unseen) > 0) {
                this.send(
                    imapHandler.compiler({
                        tag: '*',
                        command: 'OK',
                        attributes: [
                            {
                                type: 'section',
                                section: [
                                    {
                                        type: 'atom',
                                        value: 'UNSEEN'
                                    },
                                    {
                                        type: 'atom',
                                        value: String(Number(mailboxData.unseen))
                                    }
                                ]
                            },
                            {
                                type: 'text',
                                value: 'First unseen'
                            }
                        ]
                    })
                );
            }

            // * OK [MAILBOXID (F123)] (RFC 8474 4.1: the backend's id of the mailbox, an objectid)
            if (isObjectId(mailboxData.mailboxId)) {
                this.send('* OK [MAILBOXID (' + mailboxData.mailboxId + ')] Ok');
            }

            // * OK [HIGHESTMODSEQ 123]
            this.send(
                imapHandler.compiler({
                    tag: '*',
                    command: 'OK',
                    attributes: [
                        {
                            type: 'section',
                            section: [
                                {
                                    type: 'atom',
                                    value: 'HIGHESTMODSEQ'
                                },
                                {
                                    type: 'atom',
                                    value: String(Number(mailboxData.modifyIndex) || 1)
                                }
                            ]
                        },
                        {
                            type: 'text',
                            value: 'Highest'
                        }
                    ]
                })
            );

            // * OK [UIDNEXT 1] Predicted next UID
            this.send(
                imapHandler.compiler({
                    tag: '*',
                    command: 'OK',
                    attributes: [
                        {
                            type: 'section',
                            section: [
                                {
                                    type: 'atom',
                                    value: 'UIDNEXT'
                                },
                                {
                                    type: 'atom',
                                    value: String(Number(mailboxData.uidNext) || 1)
                                }
                            ]
                        },
                        {
                            type: 'text',
                            value: 'Predicted next UID'
                        }
                    ]
                })
            );

            // QRESYNC: what the client missed since the MODSEQ it knew, when its UIDVALIDITY still holds
            if (qresync && qresync.uidValidity === Number(mailboxData.uidValidity)) {
                let vanished = [].concat(mailboxData.vanished || []);
                if (qresync.knownUids) {
                    vanished = uidsInSet(vanished, qresync.knownUids, this.selected.uidList);
                }
                if (vanished.length) {
                    this.send(vanishedLine(vanished, true));
                }
                [].concat(mailboxData.changed || []).forEach(message => {
                    let response = this.formatResponse('FETCH', message.uid, { uid: message.uid, flags: message.flags, modseq: message.modseq });
                    if (response) {
                        this.send(imapHandler.compiler(response));
                    }
                });
            }

            callback(null, {
                response: 'OK',
                code: this.selected.readOnly ? 'READ-ONLY' : 'READ-WRITE',
                message: command.command + ' completed' + (this.selected.condstoreEnabled ? ', CONDSTORE is now enabled' : '')
            });
        });
    }
};
