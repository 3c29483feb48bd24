/*eslint no-unused-expressions: 0, prefer-arrow-callback: 0 */

'use strict';

const { formatThreads } = require('../lib/commands/thread');

const chai = require('chai');
const expect = chai.expect;
chai.config.includeStack = true;

const node = (uid, ...children) => ({ uid, children });
const dummy = (...children) => node(null, ...children);

describe('THREAD answer (formatThreads)', function () {
    it('writes a single child after its parent and several each in parentheses', function () {
        let roots = [node(1, node(2, node(3), node(4))), node(5)];
        expect(formatThreads(roots, uid => uid)).to.equal('(1 2 (3)(4))(5)');
    });

    it('writes a dummy as its children, and nothing for a dummy without messages below it', function () {
        let roots = [dummy(node(6), node(7, dummy(node(8)))), node(9, dummy()), node(10, dummy(dummy(), dummy()))];
        expect(formatThreads(roots, uid => uid)).to.equal('((6)(7 8))(9)(10 ()())');
    });

    it('writes the numbers it is given for the UIDs, down a long reply chain', function () {
        let root = node(1);
        let last = root;
        for (let uid = 2; uid <= 1000; uid++) {
            let next = node(uid);
            last.children.push(next);
            last = next;
        }
        let written = formatThreads([root], uid => uid + 100);
        expect(written.startsWith('(101 102 103 ')).to.be.true;
        expect(written.endsWith(' 1099 1100)')).to.be.true;
    });
});
