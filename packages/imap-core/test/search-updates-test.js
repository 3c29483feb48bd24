/* eslint no-unused-expressions:0 */
'use strict';

const chai = require('chai');
const { sendUpdates } = require('../lib/search-updates');

const expect = chai.expect;

describe('search-updates', () => {
    // a SEARCH context that held UID 1; the hook's answers are released by the test, in any order
    let setup = () => {
        let calls = [];
        let sent = [];
        let context = { tag: 'A1', isUid: true, hook: 'onSearch', options: {}, uids: [1] };
        let connection = {
            selected: { mailbox: 'INBOX', uidList: [1, 2, 3], searchUpdates: [context], notifications: [] },
            session: {},
            send: line => sent.push(line),
            _server: { onSearch: (mailbox, options, session, cb) => calls.push(cb) }
        };
        return { calls, sent, context, connection };
    };

    it('keeps the newest evaluation when an older one answers last', () => {
        let { calls, sent, context, connection } = setup();
        sendUpdates(connection, () => {});
        sendUpdates(connection, () => {});
        expect(calls).to.have.length(2);
        // the second evaluation (messages 1:3 match) answers first, the first (1:2) after it
        calls[1](null, { uidList: [1, 2, 3] });
        calls[0](null, { uidList: [1, 2] });
        expect(context.uids).to.deep.equal([1, 2, 3]);
        expect(sent).to.deep.equal(['* ESEARCH (TAG "A1") UID ADDTO (0 2:3)']);
    });

    it('applies evaluations that answer in order', () => {
        let { calls, sent, context, connection } = setup();
        sendUpdates(connection, () => {});
        sendUpdates(connection, () => {});
        calls[0](null, { uidList: [1, 2] });
        calls[1](null, { uidList: [1, 2, 3] });
        expect(context.uids).to.deep.equal([1, 2, 3]);
        expect(sent).to.deep.equal(['* ESEARCH (TAG "A1") UID ADDTO (0 2)', '* ESEARCH (TAG "A1") UID ADDTO (0 3)']);
    });
});

describe('search-updates context option', () => {
    const search = require('../lib/commands/search');
    const sort = require('../lib/commands/sort');

    // a selected mailbox of UIDs 1:3 whose hooks record the options they get and match UID 1
    let connection = () => {
        let options = [];
        let hook = (mailbox, opts, session, cb) => {
            options.push(opts);
            cb(null, { uidList: [1] });
        };
        return {
            options,
            selected: { mailbox: 'INBOX', uidList: [1, 2, 3], notifications: [] },
            session: {},
            send: () => {},
            enableCondstore: () => {},
            _server: { onSearch: hook, onSort: hook }
        };
    };
    let run = (handler, conn, tag, attributes) =>
        new Promise((resolve, reject) => handler.call(conn, { tag, command: 'UID SEARCH', attributes }, (err, res) => (err ? reject(err) : resolve(res))));
    let atoms = values => values.map(value => (Array.isArray(value) ? atoms(value) : { type: 'ATOM', value }));

    it('gives a SEARCH context one object on its first evaluation and every one after', async () => {
        let conn = connection();
        await run(search.handler, conn, 'A1', atoms(['RETURN', ['UPDATE'], 'ALL']));
        await new Promise(resolve => sendUpdates(conn, resolve));
        expect(conn.options).to.have.length(2);
        expect(conn.options[0].context).to.be.an('object');
        expect(conn.options[1].context).to.equal(conn.options[0].context);
    });

    it('gives a SORT context one object on its first evaluation and every one after', async () => {
        let conn = connection();
        await run(sort.handler, conn, 'A1', atoms(['RETURN', ['UPDATE'], ['ARRIVAL'], 'UTF-8', 'ALL']));
        await new Promise(resolve => sendUpdates(conn, resolve));
        expect(conn.options).to.have.length(2);
        expect(conn.options[0].context).to.be.an('object');
        expect(conn.options[1].context).to.equal(conn.options[0].context);
    });

    it('gives no context to a search without UPDATE', async () => {
        let conn = connection();
        await run(search.handler, conn, 'A1', atoms(['RETURN', ['ALL'], 'ALL']));
        await run(search.handler, conn, 'A2', atoms(['ALL']));
        expect(conn.options.map(o => o.context)).to.deep.equal([undefined, undefined]);
    });
});
