'use strict';

const IMAPStream = require('./imap-stream').IMAPStream;
const IMAPCommand = require('./imap-command').IMAPCommand;
const IMAPComposer = require('./imap-composer').IMAPComposer;
const imapTools = require('./imap-tools');
const { uidsInSet, vanishedLine } = require('./qresync');
const search = require('./search');
const searchUpdates = require('./search-updates');
const notifyDelivery = require('./notify-delivery');
const { logsDebug } = require('./debug-log');
const { selectedAllows } = require('./notify');
const dns = require('dns');
const crypto = require('crypto');
const os = require('os');
const base32 = require('base32.js');
const EventEmitter = require('events').EventEmitter;
const packageInfo = require('../package.json');
const errors = require('./errors.js');

// Shift timeout by 37 seconds (randomly selected by myself, no specific meaning) to
// avoid race conditions where both the client and the server wait for 5 minutes
const SOCKET_TIMEOUT = 5 * 60 * 1000 + 37 * 1000;

// RFC 2971 bounds ID: at most 30 field-value pairs, a field at most 30 octets, a value at most
// 1024. As quoted strings with every octet escaped, its list is 30 * (62 + 1 + 2050) + 29 + 2 =
// 63,421 bytes, so 64 KiB takes any conforming ID with a tag of up to 2 KB, while a connection
// still never buffers more than that for a line
const MAX_ID_LINE_LENGTH = 64 * 1024;
// a line that starts an ID command: a tag (ASTRING-CHAR but "+") and the command name
const ID_LINE = /^[^\s(){%*"\\+]+ ID(?: |$)/i;

/**
 * Creates a handler for new socket
 *
 * @constructor
 * @param {Object} server Server instance
 * @param {Object} socket Socket instance
 */
/**
 * mailbridge (change 098): everything written to the socket within one turn of the event loop
 * (a FETCH's responses, a body stream's chunks, the tagged answer) leaves in one write instead of
 * a write, and a system call, each: the socket is corked at its first write and uncorked once
 * the turn's callbacks and promise jobs have run.
 */
function coalesceWrites(socket) {
    if (typeof socket.cork !== 'function') {
        // a stand-in of a socket (tests) writes as it is told
        return;
    }
    let write = socket.write;
    let corked = false;
    let uncork = () => {
        corked = false;
        socket.uncork();
    };
    socket.write = function (...args) {
        if (!corked) {
            corked = true;
            socket.cork();
            setImmediate(uncork);
        }
        return write.apply(this, args);
    };
}

class IMAPConnection extends EventEmitter {
    constructor(server, socket, options) {
        super();

        options = options || {};
        // Random session ID, used for logging
        this.id = options.id || base32.encode(crypto.randomBytes(10)).toLowerCase();

        this.ignore = options.ignore;

        this.compression = false;
        this._deflate = false;
        this._inflate = false;
        this._inflateLimit = false;

        this._server = server;
        this._socket = socket;
        coalesceWrites(socket);

        this.writeStream = new IMAPComposer({
            connection: this,
            skipFetchLog: server.skipFetchLog
        });
        this.writeStream.pipe(this._socket);
        this.writeStream.on('error', this._onError.bind(this));

        // session data (envelope, user etc.)
        this.session = false;

        // If true then the connection is currently being upgraded to TLS
        this._upgrading = false;

        // Parser instance for the incoming stream
        this._parser = new IMAPStream({
            maxLineLength: this._server.options.maxLineLength
        });

        // Set handler for incoming commands
        this._parser.oncommand = this._onCommand.bind(this);

        // Before login only short lines are expected, so a smaller limit applies
        let maxLineLength = this._parser.maxLineLength;
        Object.defineProperty(this._parser, 'maxLineLength', {
            get: () => (this.state === 'Not Authenticated' && this._server.options.maxLineLengthUnauthenticated) || maxLineLength
        });
        // ID's lines, the first and those after a literal, may be as long as RFC 2971 lets an ID be
        this._parser.maxLineLengthFor = head => {
            let limit = this._parser.maxLineLength;
            let isId = this._currentCommand ? this._currentCommand.command === 'ID' : ID_LINE.test(head);
            return limit && isId ? Math.max(limit, MAX_ID_LINE_LENGTH) : limit;
        };

        // Manage multi part command
        this._currentCommand = false;

        // If set, then data payload is not executed as a command but as an argument for this function
        this._nextHandler = false;

        // If true, then the connection is using TLS
        this.secure = !!this._server.options.secure;

        // Store remote address for later usage
        this.remoteAddress = (options.remoteAddress || this._socket.remoteAddress || '').replace(/^::ffff:/, '');

        // Server hostname for the greegins
        this.name = (this._server.options.name || os.hostname()).toLowerCase();

        this.state = 'Not Authenticated';

        this._listenerData = false;

        // selected mailbox metadata
        this.selected = false;

        // ignore timeouts if true
        this.idling = false;

        // indicates if CONDSTORE is enabled for the session
        this.condstoreEnabled = false;

        // indicates if QRESYNC is enabled for the session (ENABLE QRESYNC, RFC 7162 3.2.3)
        this.qresyncEnabled = false;

        // what NOTIFY SET asked for (lib/notify.js), null without NOTIFY or after NOTIFY NONE (RFC 5465)
        this.notify = null;

        // Resolved hostname for remote IP address
        this.clientHostname = false;

        // increment connection count
        this._closing = false;
        this._closed = false;

        this._closingTimeout = null;

        if (server.logger) {
            this.logger = server.logger;
        } else {
            this.logger = {};
            ['info', 'debug', 'error'].forEach(level => {
                this.logger[level] = (...args) => {
                    if (!this.ignore) {
                        this._server.logger[level](...args);
                    }
                };
            });
        }

        if (server.loggelf) {
            this.loggelf = server.loggelf;
        } else {
            this.loggelf = () => false;
        }

        // Initialize session early so it's available for onConnect handler
        this._startSession();
    }

    /**
     * Initiates the connection. Checks connection limits and reverse resolves client hostname. The client
     * is not allowed to send anything before init has finished otherwise 'You talk too soon' error is returned
     */
    init() {
        // Setup event handlers for the socket
        this._setListeners();

        let now = Date.now();
        let greetingSent = false;
        let sendGreeting = () => {
            if (greetingSent) {
                return;
            }
            greetingSent = true;

            this.logger.info(
                {
                    tnx: 'connect',
                    cid: this.id,
                    servername: this._socket && this._socket.servername
                },
                '[%s] %s from %s to %s %s:%s',
                this.id,
                this.secure ? 'Secure connection' : 'Connection',
                this.session.clientHostname,
                (this._socket && this._socket.servername) || os.hostname(),
                this._socket && this._socket.localAddress,
                this._socket && this._socket.localPort
            );

            this.send(
                '* OK ' +
                    ((this._server.options.id && this._server.options.id.name) || packageInfo.name) +
                    ' ready for requests from ' +
                    this.remoteAddress +
                    ' ' +
                    this.id
            );
        };

        // do not wait with initial response too long
        let resolveTimer = setTimeout(() => {
            clearTimeout(resolveTimer);
            sendGreeting();
        }, 1000);

        let reverseCb = (err, hostnames) => {
            clearTimeout(resolveTimer);
            if (err) {
                //ignore, no big deal
            }

            let clientHostname = hostnames && hostnames.shift();
            this.session.clientHostname = this.clientHostname = clientHostname || '[' + this.remoteAddress + ']';

            if (greetingSent && clientHostname) {
                this.logger.info(
                    {
                        tnx: 'connect',
                        cid: this.id
                    },
                    '[%s] Resolved %s as %s in %ss',
                    this.id,
                    this.remoteAddress,
                    clientHostname,
                    ((Date.now() - now) / 1000).toFixed(3)
                );
            }

            // eslint-disable-line handle-callback-err
            if (this._closing || this._closed) {
                return;
            }

            sendGreeting();
        };

        // Resolve hostname for the remote IP
        // we do not care for errors as we consider the ip as unresolved in this case, no big deal
        try {
            dns.reverse(this.remoteAddress, reverseCb);
        } catch (E) {
            // happens on invalid remote address
            reverseCb(E);
        }
    }

    /**
     * Send data to socket
     *
     * @param {Number} code Response code
     * @param {String|Array} data If data is Array, send a multi-line response
     */
    /**
     * A CONDSTORE-enabling command (RFC 7162 3.1): CONDSTORE is on for the session, and a
     * selected mailbox that did not have it on yet is announced with OK [HIGHESTMODSEQ n].
     */
    enableCondstore() {
        this.condstoreEnabled = true;
        if (this.selected && !this.selected.condstoreEnabled) {
            this.selected.condstoreEnabled = true;
            if (this.selected.modifyIndex) {
                this.send('* OK [HIGHESTMODSEQ ' + this.selected.modifyIndex + '] Highest');
            }
        }
    }

    send(payload, callback) {
        if (this._socket && !this._socket.destroyed && this._socket.readyState === 'open') {
            try {
                this[!this.compression ? '_socket' : '_deflate'].write(payload + '\r\n', 'binary', (...args) => {
                    if (args[0]) {
                        // write error
                        this.logger.error(
                            {
                                tnx: 'send',
                                cid: this.id,
                                err: args[0]
                            },
                            '[%s] Send error: %s',
                            this.id,
                            args[0].message || args[0]
                        );
                        this.loggelf({
                            short_message: '[IMAPSENDERR] ' + (args[0] && args[0].message ? args[0].message : 'Send error'),
                            full_message: args[0] && args[0].stack,
                            _error: args[0] && (args[0].message || args[0]),
                            _code: args[0] && args[0].code,
                            _tnx: 'send',
                            _sess: this.id,
                            _ip: this.remoteAddress
                        });
                        return this.close();
                    }
                    if (typeof callback === 'function') {
                        return callback(...args);
                    }
                });
            } catch (err) {
                // write error
                this.logger.error(
                    {
                        tnx: 'send',
                        cid: this.id,
                        err
                    },
                    '[%s] Send error: %s',
                    this.id,
                    err.message || err
                );
                this.loggelf({
                    short_message: '[IMAPSENDERR] ' + (err && err.message ? err.message : 'Send error'),
                    full_message: err && err.stack,
                    _error: err && (err.message || err),
                    _code: err && err.code,
                    _tnx: 'send',
                    _sess: this.id,
                    _ip: this.remoteAddress
                });
                return this.close();
            }
            if (this.compression) {
                // make sure we transmit the message immediately
                this._deflate.flush();
            }
            if (logsDebug(this.logger)) {
                this.logger.debug(
                    {
                        tnx: 'send',
                        cid: this.id
                    },
                    '[%s] S:',
                    this.id,
                    payload
                );
            }
        } else {
            // socket is not there anymore
            this.close();
        }
    }

    /**
     * Close socket
     */
    close(force) {
        if (this._closed || this._closing) {
            return;
        }

        if (!this._socket.destroyed && this._socket.writable) {
            if (this._deflate && !force) {
                // the last answers (BYE) may still be in the compressor: ending it writes them
                // out, and its pipe then ends the socket
                this._deflate.end();
            } else {
                this._socket[!force ? 'end' : 'destroy']();
            }
        }

        this._server.connections.delete(this);

        if (!force) {
            // allow socket to close in 1500ms or force it to close
            this._closingTimeout = setTimeout(() => {
                if (this._closed) {
                    return;
                }

                try {
                    this._socket.destroy();
                } catch (err) {
                    // ignore
                }

                setImmediate(() => this._onClose());
            }, 1500);
            this._closingTimeout.unref();
        }

        this._closing = true;
        if (force) {
            setImmediate(() => this._onClose());
        }
    }

    // PRIVATE METHODS

    /**
     * Setup socket event handlers
     */
    _setListeners() {
        // kept so that handOver can remove exactly these
        this._timeoutListener = this._onTimeout.bind(this);
        this._socketListeners = [
            ['close', this._onClose.bind(this)],
            ['end', this._onEnd.bind(this)],
            ['error', this._onError.bind(this)],
            ['timeout', this._timeoutListener]
        ];
        for (let [event, listener] of this._socketListeners.slice(0, 3)) {
            this._socket.on(event, listener);
        }
        this._socket.setTimeout(this._server.options.socketTimeout || SOCKET_TIMEOUT, this._timeoutListener);
        this._socket.pipe(this._parser);
    }

    /**
     * Gives the socket away after a successful authentication (a proxy to another server takes
     * it): no more commands are read from it and no answers written to it, and the connection is
     * released as if it had closed. `take` gets the socket, the tag of the command it answers,
     * and what the client sent after that command (pipelined commands not read yet).
     */
    handOver(tag, take) {
        let socket = this._socket;
        let unread = Buffer.concat([
            Buffer.from(this._parser._unread || '', 'binary'),
            ...this._parser.writableBuffer.map(entry => entry.chunk)
        ]);
        socket.unpipe(this._parser);
        this.writeStream.unpipe(socket);
        for (let [event, listener] of this._socketListeners) {
            socket.removeListener(event, listener);
        }
        socket.setTimeout(0);
        // the client's connection lives on in the proxy: not "closed"
        this._handedOver = true;
        this._onClose();
        take(socket, tag, unread);
    }

    /**
     * Fired when the socket is closed
     * @event
     */
    _onEnd() {
        if (!this._closed) {
            this._onClose();
        }
    }

    /**
     * Fired when the socket is closed
     * @event
     */
    _onClose(/* hadError */) {
        clearTimeout(this._closingTimeout);
        // a client that drops the connection while in IDLE never sends DONE
        clearTimeout(this._idleTimeout);

        if (this._closed) {
            return;
        }

        this._parser = false;

        this.state = 'Closed';

        if (this._dataStream) {
            this._dataStream.unpipe();
            this._dataStream = null;
        }

        if (this._deflate) {
            this._deflate = null;
        }

        if (this._inflate) {
            this._inflate = null;
        }

        if (this._inflateLimit) {
            this._inflateLimit = null;
        }

        this.clearNotificationListener();

        this._server.connections.delete(this);

        if (this.user) {
            if (typeof this._server.notifier.releaseConnection === 'function') {
                this._server.notifier.releaseConnection(
                    {
                        service: 'imap',
                        session: this.session,
                        user: this.user
                    },
                    () => false
                );
            }

            this.loggelf({
                short_message: '[CONNRELEASE] Connection released for ' + this.user.id,
                _connection: 'release',
                _service: 'imap',
                _sess: this.session && this.session.id,
                _user: this.user.id,
                _cid: this.id,
                _ip: this.remoteAddress
            });
        }

        // Call onClose handler if provided
        if (this._server.onClose) {
            this._server.onClose(this.session, () => {
                // Continue with normal close handling
                this._finishClose();
            });
        } else {
            this._finishClose();
        }
    }

    _finishClose() {
        if (this._closed) {
            return;
        }

        this._closed = true;
        this._closing = false;

        this.logger.info(
            {
                tnx: this._handedOver ? 'handover' : 'close',
                cid: this.id
            },
            this._handedOver ? '[%s] Connection handed over, for %s' : '[%s] Connection closed to %s',
            this.id,
            this.clientHostname
        );

        this.emit('close');
    }

    /**
     * Fired when an error occurs with the socket
     *
     * @event
     * @param {Error} err Error object
     */
    _onError(err) {
        if (err.processed) {
            return;
        }

        if (['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH'].includes(err.code)) {
            this.logger.info(
                {
                    tnx: 'connection',
                    cid: this.id
                },
                '[%s] Closing connection due to %s',
                this.id,
                err.code
            );
            this.close(); // mark connection as 'closing'
            return;
        }

        if (err && /SSL[23]*_GET_CLIENT_HELLO|ssl[23]*_read_bytes|ssl_bytes_to_cipher_list/i.test(err.message)) {
            let message = err.message;
            err.message = 'Failed to establish TLS session';
            err.responseCode = 500;
            err.code = err.code || 'TLSError';
            err.meta = {
                protocol: 'imap',
                stage: 'starttls',
                message,
                remoteAddress: this.remoteAddress
            };
        }

        if (!err || !err.message) {
            err = new Error('Socket closed unexpectedly');
            err.responseCode = 500;
            err.code = 'SocketError';
            err.meta = {
                remoteAddress: this.remoteAddress
            };
        }

        errors.notifyConnection(this, err);

        this.logger.error(
            {
                err,
                cid: this.id
            },
            '[%s] %s',
            this.id,
            err.message
        );
        this.loggelf({
            short_message: '[IMAPCONNERR] ' + (err && err.message ? err.message : 'Connection error'),
            full_message: err && err.stack,
            _error: err && err.message,
            _code: err && err.code,
            _sess: this.id,
            _ip: this.remoteAddress
        });
        this.emit('error', err);
    }

    /**
     * Fired when socket timeouts. Closes connection
     *
     * @event
     */
    _onTimeout() {
        this.logger.info(
            {
                tnx: 'connection',
                cid: this.id
            },
            '[%s] Connection TIMEOUT',
            this.id
        );

        if (this.idling) {
            // see if the connection still works
            this.send('* OK Still here (' + Date.now() + ')');
            this._socket.setTimeout(this._server.options.socketTimeout || SOCKET_TIMEOUT, this._timeoutListener);
            return;
        }

        this.send('* BYE Idle timeout, closing connection');
        setImmediate(() => this.close(true));
    }

    /**
     * Checks if a selected command is available and invokes it
     *
     * @param {Buffer} command Single line of data from the client
     * @param {Function} callback Callback to run once the command is processed
     */
    _onCommand(command, callback) {
        let currentCommand = this._currentCommand;
        const resetCompressedInput = () => {
            if (this._inflateLimit && typeof this._inflateLimit.resetInflatedBytes === 'function') {
                this._inflateLimit.resetInflatedBytes();
            }
        };

        callback = callback || (() => false);

        if (this._upgrading) {
            // ignore any commands before TLS upgrade is finished
            return callback();
        }

        let tooLong = (what, limit) => {
            this._currentCommand = false;
            this._nextHandler = false;
            resetCompressedInput();
            this.send('* BAD [TOOBIG] ' + what + ' too long (limit ' + limit + ' bytes)');
            // the connection ends and nothing after the line is read (the callback is not
            // called): the line may have announced a literal, LITERAL+ ones come unasked, and
            // their bytes must not be taken for commands
            this.send('* BYE Too long command line, closing connection');
            setImmediate(() => this.close());
        };

        if (command && command.lineTooLong) {
            return tooLong('Command line', command.limit);
        }

        if (!currentCommand) {
            this._currentCommand = currentCommand = new IMAPCommand(this);
        }

        // before login a command is bounded as a whole, its literals included: a line limit
        // alone lets one command grow without end through literals (LITERAL+ ones come unasked).
        // A literal counts with the line after it, once it was taken and read (one refused
        // ends the command), so at most one literal (1 KB before login) comes on top
        let commandLimit = this.state === 'Not Authenticated' && this._parser.maxLineLength && Math.max(this._parser.maxLineLength, MAX_ID_LINE_LENGTH);
        currentCommand.bytes = (currentCommand.bytes || 0) + (currentCommand.literalBytes || 0) + (command.value || '').length;
        currentCommand.literalBytes = command.expecting > 0 ? command.expecting : 0;
        if (commandLimit && currentCommand.bytes > commandLimit) {
            return tooLong('Command', commandLimit);
        }

        if (!command.final) {
            currentCommand.append(command, (err, ...args) => {
                if (err) {
                    // cancel pending command
                    this._currentCommand = false;
                    resetCompressedInput();
                }
                callback(err, ...args);
            });
        } else {
            this._currentCommand = false;
            // a command runs after an unsolicited NOTIFY push, never within it; while it runs, what
            // NOTIFY reports waits for its answer
            notifyDelivery.whenQuiet(this, () => {
                this._commandRunning = true;
                currentCommand.end(command, (err, ...args) => {
                    this._commandRunning = false;
                    resetCompressedInput();
                    callback(err, ...args);
                    if (this.notify) {
                        notifyDelivery.schedule(this);
                    }
                });
            });
        }
    }

    /**
     * Sets up a new session
     */
    _startSession() {
        this.session = {
            id: this.id,

            selected: this.selected,

            remoteAddress: this.remoteAddress,
            clientHostname: this.clientHostname || '[' + this.remoteAddress + ']',
            writeStream: this.writeStream,
            socket: this._socket,

            formatResponse: this.formatResponse.bind(this),
            announceKeywords: this.announceKeywords.bind(this),
            announceExpunged: this.announceExpunged.bind(this),
            getQueryResponse: imapTools.getQueryResponse,
            matchSearchQuery: search.matchSearchQuery,

            commandCounters: {},

            isUTF8Enabled: () => this.acceptUTF8Enabled,

            // the host's reports for NOTIFY (RFC 5465): messages of a mailbox changed (`events`:
            // MessageNew, MessageExpunge, FlagChange), a mailbox name came, went or changed
            notifyMailbox: (path, events) => notifyDelivery.queueStatus(this, path, events),
            notifyMailboxName: change => notifyDelivery.queueName(this, change),

            // `* VANISHED (EARLIER) ...` for those of `uids` (expunged) a client's UID set names, or false
            earlierVanished: (uids, set) => {
                let named = uidsInSet(uids, set, this.selected ? this.selected.uidList : []);
                return named.length ? { compiled: vanishedLine(named, true) } : false;
            }
        };
    }

    /**
     * Sets up notification listener from upstream
     */
    setupNotificationListener() {
        let conn = this;

        if (this._closing || this._closed) {
            // nothing to do here
            return;
        }

        let isSelected = mailbox => mailbox && conn.selected && conn.selected.mailbox && conn.selected.mailbox.toString() === mailbox.toString();

        this._listenerData = {
            cleared: false,
            callback(message) {
                let selectedMailbox = conn.selected && conn.selected.mailbox;
                if (conn._closing || conn._closed) {
                    conn.clearNotificationListener();
                    return;
                }

                if (message) {
                    // global triggers
                    switch (message.command) {
                        case 'LOGOUT':
                            conn.clearNotificationListener();
                            conn.send('* BYE ' + (message.reason || 'Logout requested'));
                            setImmediate(() => conn.close());
                            break;

                        case 'DROP':
                            if (isSelected(message.mailbox)) {
                                conn.clearNotificationListener();
                                conn.send('* BYE Selected mailbox was deleted, have to disconnect');
                                setImmediate(() => conn.close());
                                break;
                            }
                    }
                    return;
                }

                if (!selectedMailbox) {
                    return;
                }

                conn._server.notifier.getUpdates(selectedMailbox, conn.selected.modifyIndex, (err, updates) => {
                    if (!conn._listenerData || conn._listenerData.cleared) {
                        // already logged out
                        return;
                    }

                    if (err) {
                        conn.logger.info(
                            {
                                err,
                                tnx: 'updates',
                                cid: conn.id
                            },
                            '[%s] Notification Error: %s',
                            conn.id,
                            err.message
                        );
                        return;
                    }

                    // check if the same mailbox is still selected
                    if (!isSelected(selectedMailbox) || !updates || !updates.length) {
                        return;
                    }

                    updates.sort((a, b) => a.modseq - b.modseq);

                    // store new incremental modify index
                    if (updates[updates.length - 1].modseq > conn.selected.modifyIndex) {
                        conn.selected.modifyIndex = updates[updates.length - 1].modseq;
                    }

                    if (!conn.selected.notificationQueueKeys) {
                        conn.selected.notificationQueueKeys = new Set();
                    }

                    let queued = 0;
                    for (let update of updates) {
                        let key = update && update._id ? update._id.toString() : '';
                        if (!key || conn.selected.notificationQueueKeys.has(key)) {
                            continue;
                        }

                        conn.selected.notificationQueueKeys.add(key);
                        conn.selected.notifications.push(update);
                        queued++;
                    }

                    if (queued && conn.notify) {
                        // NOTIFY: sent once no command runs (lib/notify-delivery.js), in IDLE too
                        notifyDelivery.schedule(conn);
                    } else if (conn.idling) {
                        // when idling emit notifications immediately, and the search contexts' updates after them
                        if (queued && conn.emitNotifications()) {
                            conn.sendSearchUpdates(() => false);
                        }
                    }
                });
            }
        };

        this._server.notifier.addListener(this.session, this._listenerData.callback);
    }

    /**
     * Reads the journal of the selected mailbox past the session's modify index into its queue
     * of notifications, then calls `done` (also when there is nothing to read or it fails).
     */
    pullNotifications(done) {
        let selected = this.selected;
        if (this.state !== 'Selected' || !selected || !this._listenerData || this._listenerData.lock) {
            return done();
        }
        this._server.notifier.getUpdates(selected.mailbox, selected.modifyIndex, (err, updates) => {
            if (!err && this.selected === selected && Array.isArray(updates)) {
                // the listener may have queued some of these meanwhile
                let fresh = updates.filter(update => update.modseq > selected.modifyIndex).sort((a, b) => a.modseq - b.modseq);
                if (fresh.length) {
                    selected.modifyIndex = fresh[fresh.length - 1].modseq;
                    selected.notifications = selected.notifications.concat(fresh);
                }
            }
            done();
        });
    }

    clearNotificationListener() {
        if (!this._listenerData || this._listenerData.cleared) {
            return;
        }
        this._server.notifier.removeListener(this.session, this._listenerData.callback);
        this._listenerData.cleared = true;
        this._listenerData = false;
    }

    /**
     * Sends the queued updates of the selected mailbox to the client. With `allowExpunge`
     * false (while answering FETCH, STORE or SEARCH, RFC 3501 7.4.1) EXPUNGE updates stay
     * queued for a later command; sequence numbers keep counting the held messages until then.
     *
     * @param {Boolean} [allowExpunge=true] Whether untagged EXPUNGE responses may be sent now
     * @returns {Boolean} Whether anything changed (the session's own changes too)
     */
    emitNotifications(allowExpunge = true) {
        if (this.state !== 'Selected' || !this.selected) {
            return;
        }

        let notifications = this.selected.notifications || [];
        this.selected.notifications = [];

        if (this.selected.notificationQueueKeys && notifications.length) {
            for (let i = 0, len = notifications.length; i < len; i++) {
                let update = notifications[i];
                let key = update && update._id ? update._id.toString() : '';
                if (key) {
                    this.selected.notificationQueueKeys.delete(key);
                }
            }
        }

        if (!notifications.length) {
            // the session's own changes (its EXPUNGE) may have changed its RECENT count
            this.announceRecent();
            return false;
        }

        let changed = false;
        let existsResponse;
        let held = [];

        // show notifications
        this.logger.debug(
            {
                tnx: 'notifications',
                cid: this.id
            },
            '[%s] Pending notifications: %s',
            this.id,
            notifications.length
        );

        // find UIDs that are both added and removed
        let added = new Set(); // added UIDs
        let removed = new Set(); // removed UIDs
        let skip = new Set(); // UIDs that are removed before ever seen

        for (let i = 0, len = notifications.length; i < len; i++) {
            let update = notifications[i];
            if (update.command === 'EXISTS') {
                added.add(update.uid);
            } else if (update.command === 'EXPUNGE') {
                removed.add(update.uid);
            }
        }

        removed.forEach(uid => {
            if (added.has(uid)) {
                skip.add(uid);
            }
        });

        // filter multiple FETCH calls, only keep latest, otherwise might mess up MODSEQ responses
        let fetches = new Set();
        for (let i = notifications.length - 1; i >= 0; i--) {
            let update = notifications[i];
            if (update.command === 'FETCH') {
                // skip multiple flag updates and updates for removed or newly added messages
                if (fetches.has(update.uid) || added.has(update.uid) || removed.has(update.uid)) {
                    notifications.splice(i, 1);
                } else {
                    fetches.add(update.uid);
                }
            }
        }

        if (allowExpunge) {
            // the REMOVEFROM of every expunged message a search context held goes before the EXPUNGEs
            this.announceExpunged(
                notifications.filter(update => update.command === 'EXPUNGE' && !skip.has(update.uid) && update.ignore !== this.id).map(update => update.uid)
            );
        }

        for (let i = 0, len = notifications.length; i < len; i++) {
            let update = notifications[i];

            // skip unnecessary entries that are already removed
            if (skip.has(update.uid)) {
                continue;
            }

            if (update.modseq > this.selected.modifyIndex) {
                this.selected.modifyIndex = update.modseq;
            }

            this.logger.debug(
                {
                    tnx: 'notifications',
                    cid: this.id
                },
                '[%s] Processing notification: %s',
                this.id,
                JSON.stringify(update)
            );

            if (update.ignore === this.id) {
                continue; // skip this
            }

            // a NOTIFY without MessageNew (or FlagChange) for the selected mailbox: no EXISTS (or
            // FETCH of another session's flags), as Dovecot; the new messages stay out of the view
            if ((update.command === 'EXISTS' && !selectedAllows(this.notify, 'MessageNew')) || (update.command === 'FETCH' && !selectedAllows(this.notify, 'FlagChange'))) {
                continue;
            }
            if (update.command === 'EXISTS' && this.notify && this.notify.selected && this.notify.selected.fetch) {
                // kept with the selection, so a SELECT in between drops them
                (this.selected.notifyNew = this.selected.notifyNew || []).push(update.uid);
            }

            this.logger.debug(
                {
                    tnx: 'notifications',
                    cid: this.id
                },
                '[%s] UIDS: %s',
                this.id,
                this.selected.uidList.length
            );
            switch (update.command) {
                case 'EXISTS':
                    // Generate the response but do not send it yet (EXIST response generation is needed to modify the UID list)
                    // This way we can accumulate consecutive EXISTS responses into single one as
                    // only the last one actually matters to the client
                    existsResponse = this.formatResponse('EXISTS', update.uid);
                    changed = false;

                    break;

                case 'EXPUNGE': {
                    if (!allowExpunge) {
                        held.push(update);
                        break;
                    }
                    let seq = (this.selected.uidList || []).indexOf(update.uid);
                    this.logger.debug(
                        {
                            tnx: 'expunge',
                            cid: this.id
                        },
                        '[%s] EXPUNGE %s',
                        this.id,
                        seq
                    );
                    if (seq >= 0) {
                        let output = this.formatResponse('EXPUNGE', update.uid);
                        this.writeStream.write(output);
                        changed = true; // if no more EXISTS after this, then generate an additional EXISTS
                    }

                    break;
                }
                case 'FETCH':
                    this.writeStream.write(
                        this.formatResponse('FETCH', update.uid, {
                            // once QRESYNC is enabled every unsolicited FETCH names its UID (RFC 7162 3.2.4)
                            uid: this.qresyncEnabled ? update.uid : false,
                            flags: update.flags,
                            modseq: (this.selected.condstoreEnabled && update.modseq) || false
                        })
                    );

                    break;
            }
        }

        if (existsResponse && !changed) {
            // send cached EXISTS response
            this.writeStream.write(existsResponse);
            existsResponse = false;
        }

        // after VANISHED alone a client counts the messages itself (RFC 7162 3.2.10): no EXISTS, as in
        // Dovecot; one is needed when new messages came before the expunge (its count went stale)
        if (changed && (existsResponse || !this.qresyncEnabled)) {
            this.writeStream.write({
                tag: '*',
                command: String(this.selected.uidList.length),
                attributes: [
                    {
                        type: 'atom',
                        value: 'EXISTS'
                    }
                ]
            });
        }

        // what may not be sent yet goes back to the queue, still counted as queued
        if (held.length) {
            this.selected.notifications = held.concat(this.selected.notifications);
            if (this.selected.notificationQueueKeys) {
                held.forEach(update => update && update._id && this.selected.notificationQueueKeys.add(update._id.toString()));
            }
        }

        this.announceRecent();
        return true;
    }

    /**
     * REMOVEFROM for the messages of `uids` that search contexts with UPDATE hold, while they
     * still have their sequence numbers: called before their EXPUNGE responses (RFC 5267 4.3.4).
     *
     * @param {Number[]} uids UIDs about to be expunged from the session's view
     */
    announceExpunged(uids) {
        let known = new Set(((this.selected && this.selected.uidList) || []).filter(uid => uids.includes(uid)));
        if (known.size) {
            searchUpdates.announceExpunged(this, known);
        }
    }

    /**
     * Sends what changed in the results of the search contexts with UPDATE (RFC 5267 4.3), once
     * the mailbox's own changes went out; `done` is called after.
     */
    sendSearchUpdates(done) {
        searchUpdates.sendUpdates(this, done);
    }

    /** Whether a search context with UPDATE is kept for the selected mailbox. */
    hasSearchUpdates() {
        return !!(this.selected && this.selected.searchUpdates && this.selected.searchUpdates.length);
    }

    /**
     * `* n RECENT` when the number of messages recent in this session changed since it was last
     * told (RFC 3501 7.3.2): new messages announced by EXISTS, recent ones expunged. The count
     * is the host's `onRecentCount(session)`; without that hook nothing is sent.
     */
    announceRecent() {
        if (this.state !== 'Selected' || !this.selected || typeof this._server.onRecentCount !== 'function' || !selectedAllows(this.notify, 'MessageNew')) {
            return;
        }
        let count = this._server.onRecentCount(this.session);
        if (typeof count === 'number' && count !== this.selected.recentCount) {
            this.selected.recentCount = count;
            this.writeStream.write({
                tag: '*',
                command: String(count),
                attributes: [{ type: 'atom', value: 'RECENT' }]
            });
        }
    }

    /**
     * Every keyword a response shows must be in the selected folder's FLAGS (RFC 3501 7.2.6):
     * keywords in `flags` the client was not told about yet are added, and the new FLAGS and
     * PERMANENTFLAGS are sent before the response that shows them.
     *
     * @param {Array} flags Flags of a message about to be shown
     */
    announceKeywords(flags) {
        if (!this.selected || !Array.isArray(this.selected.flags)) {
            return;
        }
        // called for every message a FETCH shows: the lowercase index is built once per FLAGS list
        let index = this.selected.flagIndex;
        if (!index || index.list !== this.selected.flags) {
            index = this.selected.flagIndex = {
                list: this.selected.flags,
                known: new Set(this.selected.flags.map(flag => flag.toLowerCase()))
            };
        }
        let added = [];
        [].concat(flags || []).forEach(flag => {
            if (typeof flag === 'string' && flag && flag.charAt(0) !== '\\' && !index.known.has(flag.toLowerCase())) {
                index.known.add(flag.toLowerCase());
                added.push(flag);
            }
        });
        if (!added.length) {
            return;
        }
        this.selected.flags = index.list = this.selected.flags.concat(added);
        imapTools.flagsResponses(this.selected.flags).forEach(response => this.writeStream.write(response));
    }

    formatResponse(command, uid, data) {
        command = command.toUpperCase();
        let seq;

        if (command === 'EXISTS') {
            this.selected.uidList.push(uid);
            seq = this.selected.uidList.length;
        } else {
            seq = (this.selected.uidList || []).indexOf(uid);
            if (seq < 0) {
                return false;
            }
            seq++;
        }

        if (command === 'EXPUNGE') {
            this.selected.uidList.splice(seq - 1, 1);
            if (this.qresyncEnabled) {
                // RFC 7162 3.2.10: VANISHED instead of EXPUNGE once QRESYNC is enabled
                return { compiled: vanishedLine([uid], false) };
            }
        }

        let response = {
            tag: '*',
            command: String(seq),
            attributes: [
                {
                    type: 'atom',
                    value: command
                }
            ]
        };

        if (data) {
            if ('query' in data) {
                data.query.forEach((item, i) => item.item === 'flags' && this.announceKeywords(data.values[i]));
            } else if (data.flags) {
                this.announceKeywords(data.flags);
            }

            response.attributes.push([]);
            if ('query' in data) {
                // Response for FETCH command
                data.query.forEach((item, i) => {
                    response.attributes[1].push(item.original);
                    if (['flags', 'modseq'].indexOf(item.item) >= 0) {
                        response.attributes[1].push(
                            [].concat(data.values[i] || []).map(value => ({
                                type: 'ATOM',
                                value: (value || value === 0 ? value : '').toString()
                            }))
                        );
                    } else if (Object.prototype.toString.call(data.values[i]) === '[object Date]') {
                        response.attributes[1].push({
                            type: 'ATOM',
                            value: imapTools.formatInternalDate(data.values[i])
                        });
                    } else if (Array.isArray(data.values[i])) {
                        response.attributes[1].push(data.values[i]);
                    } else if (item.isLiteral) {
                        if (data.values[i] && data.values[i].type === 'stream') {
                            response.attributes[1].push({
                                type: 'LITERAL',
                                value: data.values[i].value,
                                expectedLength: data.values[i].expectedLength,
                                startFrom: data.values[i].startFrom,
                                maxLength: data.values[i].maxLength
                            });
                        } else if (data.values[i] && data.values[i].type === 'binary') {
                            // BINARY[...] content, as a literal8 when imap-tools says so
                            response.attributes[1].push({
                                type: 'LITERAL',
                                value: data.values[i].value,
                                literal8: data.values[i].literal8
                            });
                        } else {
                            response.attributes[1].push({
                                type: 'LITERAL',
                                value: data.values[i]
                            });
                        }
                    } else if (data.values[i] === '' || data.values[i] === null) {
                        // an empty atom, or NIL (THREADID of a message of no thread, RFC 8474 5.2)
                        response.attributes[1].push(data.values[i]);
                    } else {
                        response.attributes[1].push({
                            type: 'ATOM',
                            value: data.values[i].toString()
                        });
                    }
                });
            } else {
                // Notification response
                Object.keys(data).forEach(key => {
                    let value = data[key];
                    key = key.toUpperCase();
                    if (!value) {
                        return;
                    }

                    switch (key) {
                        case 'FLAGS':
                            value = [].concat(value || []).map(flag =>
                                flag && flag.value
                                    ? flag
                                    : {
                                          type: 'ATOM',
                                          value: flag
                                      }
                            );
                            break;

                        case 'UID':
                            value =
                                value && value.value
                                    ? value
                                    : {
                                          type: 'ATOM',
                                          value: (value || '0').toString()
                                      };
                            break;

                        case 'MODSEQ':
                            value = [].concat(
                                value && value.value
                                    ? value
                                    : {
                                          type: 'ATOM',
                                          value: (value || '0').toString()
                                      }
                            );
                            break;
                    }

                    response.attributes[1].push({
                        type: 'ATOM',
                        value: key
                    });

                    response.attributes[1].push(value);
                });
            }
        }

        return response;
    }

    setUser(user) {
        this.user = this.session.user = user;
    }
}

// Expose to the world
module.exports.IMAPConnection = IMAPConnection;
