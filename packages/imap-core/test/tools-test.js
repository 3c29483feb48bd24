/*eslint no-unused-expressions: 0, prefer-arrow-callback: 0 */

'use strict';

const imapTools = require('../lib/imap-tools');
const chai = require('chai');
const expect = chai.expect;
chai.config.includeStack = true;

describe('#packMessageRange', function() {
    it('should return as is', function() {
        expect(imapTools.packMessageRange([1, 3, 5, 9])).to.equal('1,3,5,9');
    });

    it('should return a range', function() {
        expect(imapTools.packMessageRange([1, 2, 3, 4])).to.equal('1:4');
    });

    it('should return mixed ranges', function() {
        expect(imapTools.packMessageRange([1, 3, 4, 6, 8, 9, 10, 11, 13])).to.equal('1,3:4,6,8:11,13');
    });
});

describe('#filterFolders', function() {
    it('should not throw for wildcard queries containing braces', function() {
        expect(function() {
            imapTools.filterFolders([{ path: 'test' }], '%{2}');
        }).to.not.throw();
    });

    it('should treat braces in wildcard queries as literal characters', function() {
        expect(
            imapTools.filterFolders([{ path: 'test' }, { path: 'test{2}' }, { path: 'other{2}' }], '%{2}').map(folder => folder.path)
        ).to.deep.equal(['test{2}', 'other{2}']);
    });
});

describe('#sendCapabilityResponse', function() {
    function getCapabilities(connection) {
        let responses = [];

        imapTools.sendCapabilityResponse({
            secure: true,
            state: 'Authenticated',
            _server: { options: {} },
            ...connection,
            send: response => responses.push(response)
        });

        expect(responses).to.have.length(1);
        expect(responses[0]).to.match(/^\* CAPABILITY /);

        return responses[0].replace(/^\* CAPABILITY /, '').split(' ');
    }

    it('should advertise WITHIN before authentication', function() {
        expect(getCapabilities({ state: 'Not Authenticated' })).to.include('WITHIN');
    });

    it('should advertise WITHIN after authentication', function() {
        expect(getCapabilities({ state: 'Authenticated' })).to.include('WITHIN');
    });

    it('should advertise WITHIN together with STARTTLS capabilities', function() {
        let capabilities = getCapabilities({
            secure: false,
            state: 'Not Authenticated',
            _server: { options: {} }
        });

        expect(capabilities).to.include('WITHIN');
        expect(capabilities).to.include('STARTTLS');
        expect(capabilities).to.include('LOGINDISABLED');
    });

    it('should advertise WITHIN only once', function() {
        let capabilities = getCapabilities({
            state: 'Authenticated',
            _server: {
                options: {
                    enableCompression: true,
                    maxMessage: 1024
                }
            }
        });

        expect(capabilities.filter(capability => capability === 'WITHIN')).to.have.length(1);
    });
});

// mailbridge (change 123)
describe('#utf7encode / #utf7decode of plain names', function() {
    const iconv = require('iconv-lite');
    const printable = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).filter(c => c !== '&');
    const plain = ['INBOX', 'Archive/2024', 'Labels/Work items', printable.join('')];

    it('gives what the codec gives for printable ASCII without "&"', function() {
        for (const name of plain.concat(printable)) {
            expect(imapTools.utf7encode(name)).to.equal(iconv.encode(name, 'utf-7-imap').toString());
            expect(imapTools.utf7decode(name)).to.equal(iconv.decode(Buffer.from(name), 'utf-7-imap').toString());
        }
    });

    it('calls no codec for them, and the codec for any other name', function() {
        const calls = [];
        const { encode, decode } = iconv;
        iconv.encode = (...args) => (calls.push('encode'), encode.apply(iconv, args));
        iconv.decode = (...args) => (calls.push('decode'), decode.apply(iconv, args));
        try {
            for (const name of plain) {
                imapTools.utf7encode(name);
                imapTools.utf7decode(name);
                expect(imapTools.normalizeMailbox(name, true)).to.equal(name.replace(/^inbox$/i, 'INBOX'));
            }
            expect(calls).to.deep.equal([]);
            expect(imapTools.utf7encode('Entwürfe')).to.equal('Entw&APw-rfe');
            expect(imapTools.utf7decode('Entw&APw-rfe')).to.equal('Entwürfe');
            expect(imapTools.utf7encode('A&B')).to.equal('A&-B');
            expect(imapTools.utf7decode('A&-B')).to.equal('A&B');
            expect(calls).to.include.members(['encode', 'decode']);
        } finally {
            Object.assign(iconv, { encode, decode });
        }
    });
});

describe('#formatResponse FETCH of OBJECTIDs', function() {
    const { IMAPConnection } = require('../lib/imap-connection');
    const imapHandler = require('../lib/handler/imap-handler');

    function fetchLine(message) {
        const query = ['emailid', 'threadid'].map(item => ({ item, original: { type: 'ATOM', value: item.toUpperCase() } }));
        const connection = { selected: { uidList: [7] }, announceKeywords() {} };
        const values = imapTools.getQueryResponse(query, message, {});
        return imapHandler.compiler(IMAPConnection.prototype.formatResponse.call(connection, 'FETCH', 7, { query, values }));
    }

    it('writes both ids as one-atom lists', function() {
        expect(fetchLine({ emailId: 'Mabc', threadId: 'T_x-1' })).to.equal('* 1 FETCH (EMAILID (Mabc) THREADID (T_x-1))');
    });

    it('writes NIL for a message of no thread', function() {
        expect(fetchLine({ emailId: 'Mabc', threadId: null })).to.equal('* 1 FETCH (EMAILID (Mabc) THREADID NIL)');
    });
});
