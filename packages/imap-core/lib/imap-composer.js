'use strict';

const imapHandler = require('./handler/imap-handler');
const Transform = require('stream').Transform;
const { logsDebug } = require('./debug-log');

class IMAPComposer extends Transform {
    constructor(options) {
        super();
        Transform.call(this, {
            writableObjectMode: true
        });
        options = options || {};
        this.connection = options.connection;
        this.skipFetchLog = options.skipFetchLog;
    }

    _transform(obj, encoding, done) {
        if (!obj) {
            return done();
        }

        if (typeof obj.pipe === 'function') {
            // pipe stream to socket and wait until it finishes before continuing

            if (!this.skipFetchLog && logsDebug(this.connection.logger)) {
                let description = [obj.description, obj._mailbox, obj._message, obj._uid].filter(v => v).join('/');
                this.connection.logger.debug(
                    {
                        tnx: 'pipeout',
                        cid: this.connection.id
                    },
                    '[%s] S: <fetch response%s>',
                    this.connection.id,
                    description ? ' ' + description : ''
                );
            }

            obj.pipe(this.connection[!this.connection.compression ? '_socket' : '_deflate'], {
                end: false
            });
            obj.once('error', err => this.emit('error', err));
            obj.once('end', () => {
                this.push('\r\n');
                done();
            });
            return;
        }

        if (Array.isArray(obj.compiled)) {
            // mailbridge (change 127): a response made of Buffers (a FETCH's text and the body
            // bytes the host keeps) goes out as they are, without joining them into one
            if (!this.skipFetchLog && logsDebug(this.connection.logger)) {
                this.connection.logger.debug(
                    {
                        tnx: 'send',
                        cid: this.connection.id
                    },
                    '[%s] S: <fetch response>',
                    this.connection.id
                );
            }
            for (let chunk of obj.compiled) {
                this.push(chunk);
            }
            this.push('\r\n');
            return done();
        }

        let compiled = obj.compiled ? obj.compiled : imapHandler.compiler(obj);

        if ((!this.skipFetchLog || (!obj.compiled && this.skipFetchLog)) && logsDebug(this.connection.logger)) {
            this.connection.logger.debug(
                {
                    tnx: 'send',
                    cid: this.connection.id
                },
                '[%s] S:',
                this.connection.id,
                compiled
            );
        }

        // <https://github.com/zone-eu/wildduck/issues/563>
        // <https://github.com/zone-eu/wildduck/pull/564
        if (typeof compiled === 'object') {
            this.push(compiled);
            this.push('\r\n');
        } else if (typeof compiled === 'string') {
            this.push(Buffer.from(compiled + '\r\n', 'binary'));
        } else {
            return done(new TypeError('"compiled" was not an object or string'));
        }

        done();
    }

    _flush(done) {
        done();
    }
}

module.exports.IMAPComposer = IMAPComposer;
