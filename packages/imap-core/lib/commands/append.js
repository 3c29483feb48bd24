'use strict';

const imapTools = require('../imap-tools');
const binaryToBase64 = require('../indexer/binary-to-base64');

module.exports = {
    state: ['Authenticated', 'Selected'],

    // the answer carries the updates of the selected mailbox, the appended message's EXISTS
    // included (RFC 3501 6.3.11): the journal is read before they are sent

    // `APPEND mailbox 1*(SP [flag-list] [SP date-time] SP (literal / CATENATE (parts)))`: one
    // message, or several with MULTIAPPEND (RFC 3502), each given whole or built from parts
    // (CATENATE, RFC 4469), so the arguments are checked by parseMessages
    schema: false,

    handler(command, callback) {
        // Check if APPEND method is set
        if (typeof this._server.onAppend !== 'function') {
            return callback(null, {
                response: 'NO',
                message: 'APPEND not implemented'
            });
        }

        let attributes = [].concat(command.attributes || []);
        let path = (attributes.shift() || {}).value;
        if (path !== undefined && path !== null) {
            path = imapTools.normalizeMailbox(Buffer.isBuffer(path) ? Buffer.from(path, 'binary').toString() : path.toString(), !this.acceptUTF8Enabled);
        }
        if (!path) {
            return callback(new Error('Invalid mailbox argument for APPEND'));
        }

        let messages;
        let catenate = typeof this._server.onCatenate === 'function';
        try {
            messages = parseMessages(attributes, catenate);
            if (messages.length > 1 && typeof this._server.onMultiAppend !== 'function') {
                throw new Error('Too many arguments provided');
            }
        } catch (E) {
            return callback(E);
        }

        if (messages.some(message => message.raw && !message.raw.length)) {
            // RFC 3502: a zero-length message cancels the whole command
            return callback(null, {
                response: 'NO',
                message: "Can't save a zero byte message."
            });
        }

        if (messages.some(message => message.parts)) {
            // the host resolves the URLs and stores every message or none
            return storeAll(this, path, messages, null, callback);
        }

        // binary parts of a literal8 are stored base64 encoded (RFC 3516 4.4, see binary-to-base64.js)
        let converted = Promise.all(messages.map(message => (message.literal8 ? binaryToBase64(message.raw) : message.raw)));

        if (messages.length > 1) {
            return converted.then(
                raws => storeAll(this, path, messages, raws, callback),
                err => callback(err)
            );
        }

        let { flags, internaldate } = messages[0];

        let store = raw => {
            let logdata = {
                short_message: '[APPEND]',
                _mail_action: 'append',
                _path: path,
                _user: this.session.user.id.toString(),
                _mailbox: this.selected.mailbox,
                _mailbox_path: this.selected.path,
                _sess: this.id,
                _flags: flags.join(', '),
                _internaldate: internaldate,
                _size: raw.length
            };

            this._server.onAppend(path, flags, internaldate, raw, this.session, (err, success, info) => {
                Object.keys(info || {})
                    .filter(key => key !== 'prepared')
                    .forEach(key => {
                        let vkey = '_' + key.replace(/[A-Z]+/g, c => '_' + c.toLowerCase());
                        if (['_id', '_status'].includes(vkey)) {
                            vkey = '_append' + vkey;
                        }
                        logdata[vkey] = info[key];
                    });

                if (info && info.prepared) {
                    const { headers } = info.prepared;

                    const from = headers.find(header => header.key === 'from');
                    const parsedFrom = info.prepared.mimeTree.parsedHeader?.from?.[0];
                    if (from && parsedFrom) {
                        logdata._append_header_from = parsedFrom.address;
                        logdata._append_header_from_name = parsedFrom.name;
                        logdata._append_header_from_value = from.value;
                    }

                    const { msgid } = info.prepared;
                    logdata._append_message_id = msgid;

                    const { subject } = info.prepared;
                    logdata._append_subject = subject;
                }

                if (err) {
                    logdata._error = err.message;
                    logdata._code = err.code;
                    logdata._response = err.response;
                    logdata._responseMessage = err.responseMessage;
                    logdata._ratelimit_ttl = err.ttl;
                    this._server.loggelf(logdata);

                    if (err.code === 10334) {
                        // 10334 is Mongodb BSONObjectTooLarge
                        return callback(null, {
                            response: 'NO',
                            message: 'Message text too large'
                        });
                    }

                    // do not return actual error to user
                    return callback(null, imapTools.hookErrorResponse(err, {
                        response: 'NO',
                        code: 'TEMPFAIL',
                        message: err.responseMessage
                    }));
                }

                let code = typeof success === 'string' ? success.toUpperCase() : 'APPENDUID ' + info.uidValidity + ' ' + info.uid;

                logdata._response = success;
                this._server.loggelf(logdata);

                callback(null, {
                    response: success === true ? 'OK' : 'NO',
                    code
                });
            });
        };

        converted.then(([raw]) => store(raw), err => callback(err));
    }
};

/**
 * The messages of an APPEND's arguments after the mailbox: each an optional flag list and
 * date-time before its literal (or `UTF8 (literal)`, RFC 6855), as
 * `{flags, internaldate, raw, literal8}`; a syntax error throws.
 */
function parseMessages(attributes, catenate) {
    let messages = [];
    let options = [];
    for (let i = 0; i < attributes.length; i++) {
        let attribute = attributes[i];
        let literal = null;
        if (isLiteral(attribute)) {
            literal = attribute;
        } else if (catenate && isAtom(attribute, 'CATENATE')) {
            messages.push({ ...parseMessage(options, null), parts: parseCatenate(attributes[++i]) });
            options = [];
            continue;
        } else if (attribute && attribute.type === 'ATOM' && /^UTF8$/i.test(attribute.value)) {
            let wrapped = attributes[++i];
            if (!Array.isArray(wrapped) || wrapped.length !== 1 || !isLiteral(wrapped[0])) {
                throw new Error('Invalid message argument for APPEND');
            }
            literal = wrapped[0];
        }
        if (!literal) {
            options.push(attribute);
            continue;
        }
        messages.push(parseMessage(options, literal));
        options = [];
    }
    if (options.length || !messages.length) {
        throw new Error('Invalid message argument for APPEND');
    }
    return messages;
}

function isLiteral(attribute) {
    return !!attribute && !Array.isArray(attribute) && /^literal$/i.test(attribute.type);
}

function isAtom(attribute, name) {
    return !!attribute && attribute.type === 'ATOM' && typeof attribute.value === 'string' && attribute.value.toUpperCase() === name;
}

/**
 * CATENATE's parts (RFC 4469 5): `URL astring` and `TEXT literal` (a literal8 too, as BINARY is
 * offered), as `{url}` and `{text, literal8}`, and RFC 6855's `UTF8 (literal8)`, text in UTF-8
 * that is not binary input (`literal8` false), as UTF8=ACCEPT is offered; anything else is a
 * syntax error.
 */
function parseCatenate(list) {
    if (!Array.isArray(list) || !list.length || list.length % 2) {
        throw new Error('Invalid CATENATE argument for APPEND');
    }
    let parts = [];
    for (let i = 0; i < list.length; i += 2) {
        let value = list[i + 1];
        if (isAtom(list[i], 'URL') && value && !Array.isArray(value) && ['ATOM', 'STRING', 'LITERAL'].includes(value.type)) {
            parts.push({ url: Buffer.isBuffer(value.value) ? value.value.toString() : String(value.value) });
        } else if (isAtom(list[i], 'TEXT') && isLiteral(value)) {
            parts.push({ text: literalBytes(value), literal8: !!value.literal8 });
        } else if (isAtom(list[i], 'UTF8') && Array.isArray(value) && value.length === 1 && isLiteral(value[0])) {
            parts.push({ text: literalBytes(value[0]), literal8: false });
        } else {
            throw new Error('Invalid CATENATE argument for APPEND');
        }
    }
    return parts;
}

function literalBytes(literal) {
    if (Buffer.isBuffer(literal.value)) {
        return literal.value;
    }
    return Buffer.from(typeof literal.value === 'string' ? literal.value : (literal.value || '').toString(), 'binary');
}

/** One message: `[flag-list] [date-time]` before its literal (or CATENATE), checked as RFC 3501 APPEND's. */
function parseMessage(options, literal) {
    let flags = [];
    let internaldate = false;
    if (options.length > 2 || (options.length === 2 && !Array.isArray(options[0])) || options.some((option, i) => i && Array.isArray(option))) {
        throw new Error('Invalid arguments for APPEND');
    }
    options.forEach(option => {
        if (Array.isArray(option)) {
            flags = option;
        } else {
            internaldate = (option && option.value) || '';
        }
    });

    flags = flags.map(imapTools.flagName);

    if (internaldate) {
        internaldate = internaldate.toString(); // might be Buffer

        if (!imapTools.validateInternalDate(internaldate)) {
            throw new Error('Invalid date argument for APPEND');
        }

        let parsedDate = new Date(internaldate);
        if (parsedDate.toString() === 'Invalid Date' || parsedDate.getTime() > Date.now() + 24 * 3600 * 1000 || parsedDate.getTime() <= 1000) {
            throw new Error('Invalid date-time argument for APPEND');
        }
    }

    for (let i = flags.length - 1; i >= 0; i--) {
        if (flags[i].charAt(0) === '\\') {
            if (imapTools.systemFlags.indexOf(flags[i].toLowerCase()) < 0) {
                throw new Error('Invalid system flag argument for APPEND');
            }
            // fix flag case
            flags[i] = flags[i].toLowerCase().replace(/^\\./, c => c.toUpperCase());
        }
    }

    // keep only unique flags
    flags = flags.filter((flag, i) => !i || flags.slice(0, i).indexOf(flag) < 0);

    if (!literal) {
        return { flags, internaldate };
    }
    return { flags, internaldate, raw: literalBytes(literal), literal8: !!literal.literal8 };
}

/**
 * MULTIAPPEND (RFC 3502): the onMultiAppend hook stores every message or none and answers
 * `{uidValidity, uids}`, which the OK carries as one APPENDUID with the UID set (RFC 4315).
 * Without `raws`, some message is CATENATE's (RFC 4469): the onCatenate hook gets every message
 * as its parts (a whole one as one TEXT part), resolves the URLs, builds the messages (converting
 * binary parts as for a literal8 when the first part is one, `literal8`) and answers the same way.
 */
function storeAll(connection, path, messages, raws, callback) {
    let given = raws
        ? messages.map((message, i) => ({ flags: message.flags, date: message.internaldate || undefined, raw: raws[i] }))
        : messages.map(message => {
              let parts = message.parts || [{ text: message.raw, literal8: message.literal8 }];
              // RFC 4469 5 as Dovecot reads it: a message is binary input when its first part is a literal8
              return { flags: message.flags, date: message.internaldate || undefined, parts, literal8: !!parts[0].literal8 };
          });
    let hook = raws ? connection._server.onMultiAppend : connection._server.onCatenate;
    hook.call(connection._server, path, given, connection.session, (err, success, info) => {
        if (err) {
            return callback(
                null,
                imapTools.hookErrorResponse(err, {
                    response: 'NO',
                    code: 'TEMPFAIL',
                    message: err.responseMessage
                })
            );
        }
        if (success !== true) {
            return callback(null, {
                response: 'NO',
                code: typeof success === 'string' ? success.toUpperCase() : false
            });
        }
        callback(null, {
            response: 'OK',
            code: 'APPENDUID ' + info.uidValidity + ' ' + imapTools.packMessageRange(info.uids.slice())
        });
    });
}
