'use strict';

const stream = require('stream');
const Writable = stream.Writable;
const PassThrough = stream.PassThrough;

const DEFAULT_MAX_LINE_LENGTH = 8 * 1024;
// how much of a line's start maxLineLengthFor() is shown: enough for any sane tag and the command
const LINE_HEAD_LENGTH = 1024;

/**
 * Incoming IMAP stream parser. Detects and emits command payloads.
 * If literal values are encountered the command payload is split into parts
 * and all parts are emitted separately. The client must send the +\r\n or
 * return a NO error for the literal
 *
 * @constructor
 * @param {Object} [options] Optional Stream options object
 */
class IMAPStream extends Writable {
    constructor(options) {
        // init Writable
        super();

        this.options = options || {};
        Writable.call(this, this.options);

        // longest command line (without literals) accepted, 0 for no limit; a connection may
        // make it a getter that depends on the session state
        this.maxLineLength = Number.isFinite(this.options.maxLineLength) ? Math.max(this.options.maxLineLength, 0) : DEFAULT_MAX_LINE_LENGTH;

        // unprocessed chars from the last parsing iteration
        this._remainder = '';

        // chunks received after the remainder that hold no line end: kept apart so that a long
        // line is neither copied nor searched again with every chunk
        this._pending = [];
        this._pendingLength = 0;
        this._literal = false;
        this._literalReady = false;

        // set while the rest of a line that went over maxLineLength is dropped unread
        this._discarding = false;

        // how many literal bytes to wait for
        this._expecting = 0;

        // once the input stream ends, flush all output without expecting the newline
        this.on('finish', this._flushData.bind(this));
    }

    /**
     * Placeholder command handler. Override this with your own.
     */
    oncommand(/* command, callback */) {
        throw new Error('Command handler is not set');
    }

    /**
     * The longest line accepted for a line that starts with `head` (its first bytes, up to
     * LINE_HEAD_LENGTH), 0 for no limit. A connection may override it to let one command's
     * lines be longer.
     */
    maxLineLengthFor(/* head */) {
        return this.maxLineLength;
    }

    // PRIVATE METHODS

    /**
     * @return {Number} the limit a line of `lineLength` that starts with `head` goes over, or 0
     */
    _lineOverLimit(lineLength, head) {
        let limit = this.maxLineLengthFor(head.substr(0, LINE_HEAD_LENGTH));
        return limit && lineLength > limit ? limit : 0;
    }

    /**
     * A line went over maxLineLength and has no end yet: it is reported now (a client may
     * never end it) and the rest of it is dropped until its line end.
     */
    _startDiscarding(limit, done) {
        this._discarding = true;
        this._remainder = '';
        this._pending = [];
        this._pendingLength = 0;
        this.oncommand(
            {
                lineTooLong: true,
                limit,
                final: true
            },
            () => done()
        );
    }

    _emitLineTooLong(limit, regex, data, pos, done) {
        this.oncommand(
            {
                lineTooLong: true,
                limit,
                final: true
            },
            () => setImmediate(this._readValue.bind(this, regex, data, pos, done))
        );
    }

    /**
     * Writable._write method.
     */
    _write(chunk, encoding, done) {
        if (!chunk || !chunk.length) {
            return done();
        }

        let str = chunk.toString('binary');

        if (!this._expecting && str.indexOf('\n') < 0) {
            if (this._discarding) {
                return done();
            }
            this._pending.push(str);
            this._pendingLength += str.length;
            let head = this._remainder.length >= LINE_HEAD_LENGTH ? this._remainder : this._remainder + this._pending[0];
            let limit = this._lineOverLimit(this._remainder.length + this._pendingLength, head);
            if (limit) {
                // a line without an end would otherwise be buffered without bound
                return this._startDiscarding(limit, done);
            }
            return done();
        }

        // what was buffered holds no line end, so the search starts at its last char (a CR
        // that this chunk's LF may complete)
        let scanFrom = Math.max(this._remainder.length + this._pendingLength - 1, 0);
        let data = this._remainder + this._pending.join('') + str;
        this._remainder = '';
        this._pending = [];
        this._pendingLength = 0;

        // start reading data
        // regex is passed as an argument because we need to keep count of the lastIndex property
        let regex = /\r?\n/g;
        regex.lastIndex = scanFrom;
        this._readValue(regex, data, 0, done);
    }

    /**
     * Reads next command from incoming stream
     *
     * @param {RegExp} regex Regular expression object. Needed to keep lastIndex value
     * @param {String} data Incoming data as binary string
     * @param {Number} pos Cursor position in current data chunk
     * @param {Function} done Function to call once data is processed
     */
    _readValue(regex, data, pos, done) {
        let match;
        let line;

        // Handle literal mode where we know how many bytes to expect before switching back to
        // normal line based mode. All the data we receive is pumped to a passthrough stream
        if (this._expecting > 0) {
            if (data.length - pos <= 0) {
                return done();
            }

            if (data.length - pos >= this._expecting) {
                // all bytes received
                this._literal.end(Buffer.from(data.substr(pos, this._expecting), 'binary'));
                pos += this._expecting;
                this._expecting = 0;
                this._literal = false;

                if (this._literalReady) {
                    // can continue
                    this._literalReady = false;
                } else {
                    this._literalReady = this._readValue.bind(this, /\r?\n/g, data.substr(pos), 0, done);
                    return;
                }
            } else {
                // data still pending
                this._literal.write(Buffer.from(data.substr(pos), 'binary'), done);
                this._expecting -= data.length - pos;
                return; // wait for the next chunk
            }
        }

        if (this._discarding) {
            if (!(match = regex.exec(data))) {
                return done();
            }
            // the end of the line that was reported too long: the next command follows
            this._discarding = false;
            pos = match.index + match[0].length;
        }

        // search for the next newline
        // exec keeps count of the last match with lastIndex
        // so it knows from where to start with the next iteration
        if ((match = regex.exec(data))) {
            let limit = this._lineOverLimit(match.index - pos, data.substr(pos, LINE_HEAD_LENGTH));
            if (limit) {
                pos = match.index + match[0].length;
                return this._emitLineTooLong(limit, regex, data, pos, done);
            }
            line = data.substr(pos, match.index - pos);
            pos += line.length + match[0].length;
        } else {
            let limit = this._lineOverLimit(data.length - pos, data.substr(pos, LINE_HEAD_LENGTH));
            if (limit) {
                return this._startDiscarding(limit, done);
            }
            this._remainder = pos < data.length ? data.substr(pos) : '';
            return done();
        }

        // {n} waits for the server's continuation, {n+} (LITERAL+, RFC 7888) does not
        if ((match = /\{(-?\d+)(\+?)\}$/.exec(line))) {
            this._expecting = Number(match[1]);
            let expecting = this._expecting;
            if (!isNaN(match[1])) {
                this._literal = new PassThrough();

                this.oncommand(
                    {
                        value: line,
                        final: false,
                        expecting: this._expecting,
                        nonSync: match[2] === '+',
                        literal: this._literal,

                        // called once the stream has been processed
                        readyCallback: () => {
                            if (!expecting) {
                                // an empty literal is complete at once and nothing waits for
                                // it: marking it ready would let the next literal's command
                                // line be read before that literal is
                                return;
                            }
                            let next = this._literalReady;
                            if (typeof next === 'function') {
                                this._literalReady = false;
                                next();
                            } else {
                                this._literalReady = true;
                            }
                        }
                    },
                    err => {
                        if (err) {
                            this._expecting = 0;
                            this._literal = false;
                            this._literalReady = false;
                        }
                        setImmediate(this._readValue.bind(this, regex, data, pos, done));
                    }
                );
                return;
            }
        }

        // what the client sent after this command and is not parsed yet (handOver passes it on)
        this._unread = data.substr(pos);
        this.oncommand(
            {
                value: line,
                final: true
            },
            err => {
                if (err) {
                    this._expecting = 0;
                    this._literal = false;
                    this._literalReady = false;
                }
                setImmediate(this._readValue.bind(this, regex, data, pos, done));
            }
        );
    }

    /**
     * Flushes remaining bytes
     */
    _flushData() {
        let line;
        if (this._discarding) {
            // the line was reported when it went over the limit
            this._discarding = false;
            return;
        }

        if (this._remainder || this._pendingLength) {
            line = this._remainder + this._pending.join('');
            this._remainder = '';
            this._pending = [];
            this._pendingLength = 0;
            this.oncommand(Buffer.from(line, 'binary'));
        }
    }
}

// Expose to the world
module.exports.IMAPStream = IMAPStream;
