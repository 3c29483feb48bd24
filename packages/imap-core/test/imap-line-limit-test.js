/* eslint-env mocha */
/* eslint-disable no-invalid-this, prefer-arrow-callback, no-unused-expressions */

'use strict';

const chai = require('chai');
const expect = chai.expect;
const EventEmitter = require('events');
const { IMAPConnection } = require('../lib/imap-connection');

chai.config.includeStack = true;

describe('IMAP line length limits', function () {
    this.timeout(10000);

    // mailbridge: the connection closes after an oversized line and reads nothing after it (README,
    // change 010); upstream answers `* BAD Command line too long` and reads the next command
    it('should reject an oversized command line and close the connection', function (done) {
        const sent = [];
        const mockServer = {
            logger: {
                debug: () => {},
                info: () => {},
                error: () => {}
            },
            options: {
                maxLineLength: 8000,
                socketTimeout: 30000
            },
            connections: new Set(),
            notifier: {}
        };

        class MockSocket extends EventEmitter {
            constructor() {
                super();
                this.destroyed = false;
                this.writable = true;
                this.readyState = 'open';
            }

            pipe(dest) {
                return dest;
            }

            write(chunk, encoding, callback) {
                sent.push(chunk.toString());
                if (typeof callback === 'function') {
                    return callback();
                }
                return true;
            }

            end() {
                this.readyState = 'closed';
                this.emit('end');
            }

            destroy() {
                this.destroyed = true;
                this.readyState = 'closed';
                this.emit('close');
            }

            setTimeout() {}
        }

        const mockSocket = new MockSocket();
        const connection = new IMAPConnection(mockServer, mockSocket, {});
        mockServer.connections.add(connection);

        // nothing is read after the line, so the writes never complete
        connection._parser.write(Buffer.from('A1 ' + 'X'.repeat(9000), 'binary'));
        connection._parser.write(Buffer.from('\r\nA2 NOOP\r\n', 'binary'));

        setTimeout(() => {
            expect(sent).to.include('* BAD [TOOBIG] Command line too long (limit 8000 bytes)\r\n');
            expect(sent).to.include('* BYE Too long command line, closing connection\r\n');
            expect(sent).to.not.include('A2 OK Nothing done\r\n');
            expect(connection._closing || connection._closed).to.be.true;
            done();
        }, 20);
    });
});
