/* eslint-env mocha */
/* eslint-disable no-invalid-this, prefer-arrow-callback, no-unused-expressions */

'use strict';

// mailbridge (change 130): COMPRESS=DEFLATE is offered per connection, and only an offered
// COMPRESS is taken up

const chai = require('chai');
const expect = chai.expect;
const { PassThrough } = require('stream');
const { IMAPConnection } = require('../lib/imap-connection');
const imapTools = require('../lib/imap-tools');
const compress = require('../lib/commands/compress');

function connectionWith(enableCompression, remoteAddress) {
    const socket = new PassThrough();
    socket.remoteAddress = remoteAddress;
    socket.setTimeout = () => {};
    const server = {
        logger: { debug: () => {}, info: () => {}, error: () => {} },
        options: { socketTimeout: 30000, enableCompression },
        connections: new Set(),
        notifier: {}
    };
    const connection = new IMAPConnection(server, socket, {});
    connection.state = 'Authenticated';
    connection.secure = true;
    return connection;
}

function capabilitiesOf(connection) {
    const responses = [];
    connection.send = line => responses.push(line);
    imapTools.sendCapabilityResponse(connection);
    return responses.join('\r\n').split(' ');
}

function compressOn(connection) {
    return new Promise((resolve, reject) =>
        compress.handler.call(connection, { attributes: [{ value: 'DEFLATE' }] }, (err, response) => (err ? reject(err) : resolve(response)))
    );
}

const remoteOnly = connection => connection.remoteAddress !== '127.0.0.1';

describe('COMPRESS=DEFLATE offered per connection', function () {
    it('is advertised to the connections a function of the connection accepts', function () {
        expect(capabilitiesOf(connectionWith(remoteOnly, '192.0.2.7'))).to.include('COMPRESS=DEFLATE');
        expect(capabilitiesOf(connectionWith(remoteOnly, '127.0.0.1'))).to.not.include('COMPRESS=DEFLATE');
    });

    it('is advertised to every connection with true, to none with false or unset', function () {
        expect(capabilitiesOf(connectionWith(true, '127.0.0.1'))).to.include('COMPRESS=DEFLATE');
        expect(capabilitiesOf(connectionWith(false, '192.0.2.7'))).to.not.include('COMPRESS=DEFLATE');
        expect(capabilitiesOf(connectionWith(undefined, '192.0.2.7'))).to.not.include('COMPRESS=DEFLATE');
    });

    it('answers a COMPRESS it did not offer as an unknown command, and stays uncompressed', async function () {
        for (const [option, address] of [
            [remoteOnly, '127.0.0.1'],
            [false, '192.0.2.7'],
            [undefined, '192.0.2.7']
        ]) {
            const connection = connectionWith(option, address);
            const response = await compressOn(connection);
            expect(response.response).to.equal('BAD');
            expect(response.message).to.equal('Unknown command: COMPRESS');
            await new Promise(resolve => setImmediate(resolve));
            expect(connection.compression).to.not.be.ok;
        }
    });

    it('takes up a COMPRESS it offered', async function () {
        const connection = connectionWith(remoteOnly, '192.0.2.7');
        const response = await compressOn(connection);
        expect(response.response).to.equal('OK');
        await new Promise(resolve => setImmediate(resolve));
        expect(connection.compression).to.equal(true);
    });
});
