'use strict';

const { expect } = require('chai');
const net = require('net');
const IMAPServer = require('../index.js').IMAPServer;

// change 098: the responses a command produces in one turn of the event loop leave the server
// in one socket write, not one write each
describe('coalesced writes', () => {
    let server;

    afterEach(done => (server ? server.close(done) : done()));

    it('answers CAPABILITY (untagged and tagged responses) in one socket write', done => {
        server = new IMAPServer({ logger: false });
        let writes = [];
        server.server.on('connection', socket => {
            let writeGeneric = socket._writeGeneric;
            socket._writeGeneric = function (writev, data, ...rest) {
                writes.push(writev ? data.length : 1);
                return writeGeneric.call(this, writev, data, ...rest);
            };
        });
        server.listen(0, '127.0.0.1', () => {
            let client = net.connect(server.server.address().port, '127.0.0.1');
            let received = '';
            client.on('data', chunk => {
                received += chunk.toString();
                if (received.includes('* OK') && !received.includes('T1 ')) {
                    if (writes.length === 1) {
                        writes = [];
                        client.write('T1 CAPABILITY\r\n');
                    }
                } else if (received.includes('T1 OK')) {
                    client.end();
                    // one write, and it held both responses
                    expect(writes.length).to.equal(1);
                    expect(received).to.match(/\* CAPABILITY [^\r\n]*\r\nT1 OK/);
                    done();
                }
            });
            client.on('error', done);
        });
    });
});
