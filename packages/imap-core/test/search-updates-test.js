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
