'use strict';

const { expect } = require('chai');
const { IMAPComposer } = require('../lib/imap-composer');

// change 127: a response given as a list of Buffers goes out as those Buffers, ended by CRLF
describe('IMAPComposer', () => {
    it('writes the Buffers of a compiled list as they are, then CRLF', done => {
        let composer = new IMAPComposer({ connection: { id: 'test', logger: { logsDebug: () => false } } });
        let head = Buffer.from('* 1 FETCH (BODY[] {5}\r\n');
        let body = Buffer.from('hello');
        let tail = Buffer.from(')');
        let chunks = [];
        composer.on('data', chunk => chunks.push(chunk));
        composer.write({ compiled: [head, body, tail] }, () => {
            composer.write({ compiled: Buffer.from('T1 OK done') }, () => {
                expect(Buffer.concat(chunks).toString()).to.equal('* 1 FETCH (BODY[] {5}\r\nhello)\r\nT1 OK done\r\n');
                // the very Buffers given: nothing was joined or copied
                expect(chunks[0]).to.equal(head);
                expect(chunks[1]).to.equal(body);
                expect(chunks[2]).to.equal(tail);
                done();
            });
        });
    });
});
