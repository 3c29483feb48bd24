'use strict';

const { expect } = require('chai');
const net = require('net');
const IMAPServer = require('../index.js').IMAPServer;

// change 114: APPEND's CATENATE (RFC 4469), parsed here and resolved by the host's onCatenate hook
describe('CATENATE', () => {
    let server;
    let calls;

    beforeEach(done => {
        calls = [];
        server = new IMAPServer({ logger: false, disableSTARTTLS: true });
        server.notifier = { addListener() {}, removeListener() {}, getUpdates: (mailbox, modseq, cb) => cb(null, []) };
        server.onAuth = (login, session, callback) => callback(null, { user: { id: 'u', username: login.username } });
        server.onAppend = (path, flags, date, raw, session, callback) => callback(null, true, { uidValidity: 1, uid: 1 });
        server.onMultiAppend = (path, messages, session, callback) => callback(null, true, { uidValidity: 1, uids: messages.map((m, i) => i + 1) });
        server.onCatenate = (path, messages, session, callback) => {
            calls.push({ path, messages });
            let bad = messages.flatMap(m => m.parts).find(part => part.url && part.url.includes('bad'));
            if (bad) {
                let err = new Error('no such message');
                err.imapResponse = { response: 'NO', code: 'BADURL', argument: bad.url, message: 'Invalid URL' };
                return callback(err);
            }
            callback(null, true, { uidValidity: 7, uids: messages.map((m, i) => i + 10) });
        };
        server.listen(0, '127.0.0.1', done);
    });

    afterEach(done => server.close(done));

    /** Sends each command once the previous one is answered; resolves with every answer. */
    function exchange(commands) {
        return new Promise((resolve, reject) => {
            let client = net.connect(server.server.address().port, '127.0.0.1');
            let received = '';
            let answers = [];
            let next = 0;
            let send = () => client.write(commands[next]);
            client.on('data', chunk => {
                received += chunk.toString('binary');
                if (next === 0 && received.includes('* OK')) {
                    received = '';
                    return send();
                }
                let tag = 'T' + (next + 1) + ' ';
                let end = received.match(new RegExp('(^|\\r\\n)' + tag + '[^\\r\\n]*\\r\\n'));
                if (end) {
                    answers.push(received);
                    received = '';
                    if (++next === commands.length) {
                        client.end();
                        return resolve(answers);
                    }
                    send();
                }
            });
            client.on('error', reject);
        });
    }

    it('is offered with the onCatenate hook, and hands URL and TEXT parts to it', async () => {
        let answers = await exchange([
            'T1 LOGIN user pass\r\n',
            'T2 CAPABILITY\r\n',
            'T3 APPEND Drafts (\\Seen) "05-Jan-2023 10:00:00 +0100" CATENATE (URL "/INBOX;UIDVALIDITY=3/;UID=5/;SECTION=HEADER" TEXT {6+}\r\nHello\n TEXT ~{3+}\r\na\u0000b URL {4+}\r\n/a/b)\r\n'
        ]);
        expect(answers[1]).to.match(/\* CAPABILITY [^\r\n]* CATENATE /);
        expect(answers[2]).to.match(/^T3 OK \[APPENDUID 7 10\]/m);
        expect(calls.length).to.equal(1);
        let [message] = calls[0].messages;
        expect(calls[0].path).to.equal('Drafts');
        expect(message.flags).to.deep.equal(['\\Seen']);
        expect(message.date).to.equal('05-Jan-2023 10:00:00 +0100');
        // binary input only when the first part is a literal8 (RFC 4469 5)
        expect(message.literal8).to.equal(false);
        expect(message.parts).to.deep.equal([
            { url: '/INBOX;UIDVALIDITY=3/;UID=5/;SECTION=HEADER' },
            { text: Buffer.from('Hello\n'), literal8: false },
            { text: Buffer.from('a\u0000b', 'binary'), literal8: true },
            { url: '/a/b' }
        ]);
    });

    it('takes a UTF8 (literal8) part (RFC 6855) as text that is not binary input', async () => {
        let answers = await exchange(['T1 LOGIN user pass\r\n', 'T2 APPEND Drafts CATENATE (UTF8 (~{9+}\r\nSubject: ) TEXT {2+}\r\nab UTF8 ({1+}\r\nc))\r\n']);
        expect(answers[1]).to.match(/^T2 OK \[APPENDUID 7 10\]/m);
        expect(calls[0].messages[0].literal8).to.equal(false);
        expect(calls[0].messages[0].parts).to.deep.equal([
            { text: Buffer.from('Subject: '), literal8: false },
            { text: Buffer.from('ab'), literal8: false },
            { text: Buffer.from('c'), literal8: false }
        ]);
        let bad = await exchange(['T1 LOGIN user pass\r\n', 'T2 APPEND Drafts CATENATE (UTF8 {1+}\r\nc)\r\n']);
        expect(bad[1]).to.match(/^T2 BAD/m);
    });

    it('takes CATENATE beside whole messages in a MULTIAPPEND, each whole one as one TEXT part', async () => {
        let answers = await exchange(['T1 LOGIN user pass\r\n', 'T2 APPEND Drafts {2+}\r\nab CATENATE (URL "/INBOX/;UID=1") (\\Flagged) ~{1+}\r\nc\r\n']);
        expect(answers[1]).to.match(/^T2 OK \[APPENDUID 7 10:12\]/m);
        expect(calls[0].messages.map(m => m.parts)).to.deep.equal([
            [{ text: Buffer.from('ab'), literal8: false }],
            [{ url: '/INBOX/;UID=1' }],
            [{ text: Buffer.from('c'), literal8: true }]
        ]);
        expect(calls[0].messages.map(m => m.literal8)).to.deep.equal([false, false, true]);
        expect(calls[0].messages[2].flags).to.deep.equal(['\\Flagged']);
    });

    it('answers a hook error with BADURL and the URL, any "]" in it percent-encoded', async () => {
        let answers = await exchange(['T1 LOGIN user pass\r\n', 'T2 APPEND Drafts CATENATE (TEXT {2+}\r\nab URL "/bad\\"u]rl")\r\n']);
        expect(answers[1]).to.match(/^T2 NO \[BADURL \/bad"u%5Drl\] Invalid URL\r\n/m);
    });

    it('is BAD for parts that are not URL astring or TEXT literal, and nothing reaches the hook', async () => {
        let answers = await exchange([
            'T1 LOGIN user pass\r\n',
            'T2 APPEND Drafts CATENATE (TEXT "quoted")\r\n',
            'T3 APPEND Drafts CATENATE ()\r\n',
            'T4 APPEND Drafts CATENATE (URL)\r\n',
            'T5 APPEND Drafts CATENATE (FOO "x")\r\n',
            'T6 APPEND Drafts CATENATE\r\n'
        ]);
        for (let i = 1; i < answers.length; i++) {
            expect(answers[i]).to.match(new RegExp('^T' + (i + 1) + ' BAD', 'm'));
        }
        expect(calls.length).to.equal(0);
    });

    it('is neither offered nor taken without the hook', async () => {
        server.onCatenate = undefined;
        let answers = await exchange(['T1 LOGIN user pass\r\n', 'T2 CAPABILITY\r\n', 'T3 APPEND Drafts CATENATE (URL "/INBOX/;UID=1")\r\n']);
        expect(answers[1]).not.to.match(/CATENATE/);
        expect(answers[2]).to.match(/^T3 BAD/m);
    });
});
