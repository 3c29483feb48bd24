'use strict';

const { expect } = require('chai');
const net = require('net');
const IMAPServer = require('../index.js').IMAPServer;

// change 117: NOTIFY (RFC 5465) parsed as Dovecot 2.3 answers it, STATUS and LIST of other
// mailboxes sent unsolicited between commands or before a running command's answer, and a
// bounded queue that ends in NOTIFICATIONOVERFLOW
describe('NOTIFY', () => {
    let server;
    let sessions;
    let notified;
    let heldList;

    beforeEach(done => {
        sessions = [];
        notified = [];
        heldList = null;
        server = new IMAPServer({ logger: false, ignoreSTARTTLS: true, notifyMaxPending: 3, notifyMaxUnread: 64 * 1024 });
        server.notifier = { addListener() {}, removeListener() {}, getUpdates: (m, i, cb) => cb(null, []) };
        server.onAuth = (login, session, cb) => {
            sessions.push(session);
            cb(null, { user: { id: 'u', username: login.username } });
        };
        let folders = ['INBOX', 'Archive', 'Labels/a', 'Labels/a/b'].map(path => ({ path, flags: [], delimiter: '/' }));
        server.onList = (query, session, cb) => (heldList ? heldList.push(() => cb(null, folders)) : cb(null, folders));
        server.onStatus = (path, items, session, cb) => cb(null, { messages: 2, uidNext: 3, uidValidity: 9, unseen: path.length % 2, highestModseq: 7 });
        server.onNotify = spec => notified.push(spec);
        server.listen(0, '127.0.0.1', done);
    });

    afterEach(done => server.close(done));

    function client() {
        let socket = net.connect(server.server.address().port, '127.0.0.1');
        let received = '';
        let waiters = [];
        socket.on('data', chunk => {
            received += chunk.toString();
            waiters = waiters.filter(w => !w());
        });
        let until = pattern =>
            new Promise(resolve => {
                let check = () => {
                    let match = pattern.exec(received);
                    if (match) {
                        let text = received.slice(0, match.index + match[0].length);
                        received = received.slice(match.index + match[0].length);
                        resolve(text);
                    }
                    return !!match;
                };
                if (!check()) {
                    waiters.push(check);
                }
            });
        let run = (tag, line) => {
            socket.write(tag + ' ' + line + '\r\n');
            return until(new RegExp('^' + tag + ' .*\\r\\n', 'm'));
        };
        return { socket, until, run };
    }

    async function loggedIn() {
        let c = client();
        await c.until(/^\* OK.*\r\n/m);
        let login = await c.run('L', 'LOGIN u p');
        if (!/^L OK/m.test(login)) {
            throw new Error(login);
        }
        return c;
    }

    it('is offered with the onNotify hook, and answers syntax errors as Dovecot does', async () => {
        let c = await loggedIn();
        expect(await c.run('C', 'CAPABILITY')).to.match(/^\* CAPABILITY .* NOTIFY/m);
        expect(await c.run('A', 'NOTIFY SET (SELECTED (MessageNew))')).to.match(/^A BAD MessageNew and MessageExpunge must be together\r\n/m);
        expect(await c.run('B', 'NOTIFY SET (SELECTED (FlagChange))')).to.match(/^B BAD FlagChange requires MessageNew and MessageExpunge\r\n/m);
        expect(await c.run('D', 'NOTIFY SET (SELECTED NONE) (SELECTED-DELAYED NONE)')).to.match(/^D BAD Duplicate selected filter\r\n/m);
        expect(await c.run('E', 'NOTIFY SET (SELECTED (MessageNew (FAST) MessageExpunge))')).to.match(/^E BAD Invalid fetch-att list/m);
        expect(await c.run('F', 'NOTIFY SET (PERSONAL (MessageNew MailboxMetadataChange ServerMetadataChange))')).to.match(
            /^F NO \[BADEVENT MailboxMetadataChange ServerMetadataChange\] Unsupported NOTIFY events\r\n/m
        );
        expect(await c.run('G', 'NOTIFY SET (PERSONAL ())')).to.match(/^G BAD Invalid arguments\r\n/m);
        expect(await c.run('H', 'NOTIFY')).to.match(/^H BAD Invalid arguments\r\n/m);
        expect(notified).to.deep.equal([]);
        expect(await c.run('I', 'NOTIFY SET (SUBTREE Labels/a (MessageNew MessageExpunge))')).to.match(/^I OK NOTIFY completed\r\n/m);
        expect(await c.run('J', 'NOTIFY NONE')).to.match(/^J OK NOTIFY completed\r\n/m);
        expect(notified.map(spec => spec && spec.groups.map(g => g.names))).to.deep.equal([[['Labels/a']], null]);
        c.socket.end();
    });

    it('NOTIFY SET STATUS sends the STATUS of the mailboxes it names, as Dovecot', async () => {
        let c = await loggedIn();
        let answer = await c.run('A', 'NOTIFY SET STATUS (SUBTREE Labels/a (MessageNew MessageExpunge FlagChange))');
        expect(answer).to.equal(
            '* STATUS "Labels/a" (MESSAGES 2 UIDNEXT 3 UIDVALIDITY 9 UNSEEN 0 HIGHESTMODSEQ 7)\r\n' +
                '* STATUS "Labels/a/b" (MESSAGES 2 UIDNEXT 3 UIDVALIDITY 9 UNSEEN 0 HIGHESTMODSEQ 7)\r\nA OK NOTIFY completed\r\n'
        );
        c.socket.end();
    });

    it('sends STATUS and LIST unsolicited when no command runs, and before the answer of one that runs', async () => {
        let c = await loggedIn();
        await c.run('A', 'NOTIFY SET (PERSONAL (MessageNew MessageExpunge MailboxName))');
        sessions[0].notifyMailbox('Archive', ['MessageNew']);
        sessions[0].notifyMailbox('Archive', ['FlagChange']);
        expect(await c.until(/^\* STATUS .*\r\n/m)).to.equal('* STATUS "Archive" (MESSAGES 2 UIDNEXT 3 UNSEEN 1)\r\n');
        sessions[0].notifyMailboxName({ path: 'Labels/c', oldPath: 'Labels/a' });
        expect(await c.until(/^\* LIST .*\r\n/m)).to.equal('* LIST () "/" "Labels/c" ("OLDNAME" ("Labels/a"))\r\n');
        heldList = [];
        c.socket.write('B LIST "" "*"\r\n');
        await new Promise(resolve => setTimeout(resolve, 50));
        sessions[0].notifyMailboxName({ path: 'Labels/c', deleted: true });
        await new Promise(resolve => setImmediate(resolve));
        heldList.forEach(answer => answer());
        let answer = await c.until(/^B .*\r\n/m);
        expect(answer).to.match(/\* LIST \(\\NonExistent\) "\/" "Labels\/c"\r\nB OK/);
        c.socket.end();
    });

    it('sends nothing while a command waits for its literal', async () => {
        let c = await loggedIn();
        await c.run('A', 'NOTIFY SET (PERSONAL (MailboxName))');
        c.socket.write('B STATUS {7}\r\n');
        await c.until(/^\+ .*\r\n/m);
        sessions[0].notifyMailboxName({ path: 'Labels/new' });
        await new Promise(resolve => setTimeout(resolve, 50));
        c.socket.write('Archive (MESSAGES)\r\n');
        expect(await c.until(/^B .*\r\n/m)).to.equal('* STATUS {7}\r\nArchive (MESSAGES 2)\r\n* LIST () "/" "Labels/new"\r\nB OK STATUS completed\r\n');
        c.socket.end();
    });

    it('a push whose hook throws fails alone: the session goes on', async () => {
        let c = await loggedIn();
        await c.run('A', 'NOTIFY SET (PERSONAL (MessageNew MessageExpunge))');
        server.onStatus = () => {
            throw new Error('hook broke');
        };
        sessions[0].notifyMailbox('Archive', ['MessageNew']);
        await new Promise(resolve => setTimeout(resolve, 20));
        expect(await c.run('B', 'NOOP')).to.equal('B OK Nothing done\r\n');
        c.socket.end();
    });

    it('past notifyMaxPending mailboxes waiting, says NOTIFICATIONOVERFLOW and stops', async () => {
        let c = await loggedIn();
        await c.run('A', 'NOTIFY SET (PERSONAL (MessageNew MessageExpunge))');
        heldList = [];
        c.socket.write('B LIST "" "*"\r\n');
        await new Promise(resolve => setTimeout(resolve, 50));
        ['INBOX', 'Archive', 'Labels/a', 'Labels/a/b'].forEach(path => sessions[0].notifyMailbox(path, ['MessageNew']));
        heldList.forEach(answer => answer());
        let answer = await c.until(/^B .*\r\n/m);
        expect(answer).to.match(/^\* OK \[NOTIFICATIONOVERFLOW\] .*\r\nB OK/m);
        expect(answer).not.to.match(/STATUS/);
        expect(notified[notified.length - 1]).to.equal(null);
        sessions[0].notifyMailbox('Archive', ['MessageNew']);
        expect(await c.run('C', 'NOOP')).to.equal('C OK Nothing done\r\n');
        c.socket.end();
    });

    it('stops pushing to a client that reads nothing, so what waits overflows instead of the output', async () => {
        let c = await loggedIn();
        await c.run('A', 'NOTIFY SET (PERSONAL (MailboxName))');
        c.socket.pause();
        let name = 'Labels/' + 'x'.repeat(1000);
        // two names a turn, fewer than notifyMaxPending: each turn's push takes them while the client reads
        for (let turn = 0; turn < 40000 && notified[notified.length - 1] !== null; turn++) {
            sessions[0].notifyMailboxName({ path: name + turn });
            sessions[0].notifyMailboxName({ path: name + turn + 'b' });
            await new Promise(resolve => setImmediate(resolve));
        }
        expect(notified[notified.length - 1]).to.equal(null);
        let socket = [...server.connections][0]._socket;
        // what was written before the pushes stopped, not the 80 MB the names would make
        expect(socket.writableLength).to.be.below(4 * 1024 * 1024);
        c.socket.resume();
        expect(await c.until(/^\* OK \[NOTIFICATIONOVERFLOW\].*\r\n/m)).to.match(/NOTIFICATIONOVERFLOW/);
        c.socket.end();
    });
});
