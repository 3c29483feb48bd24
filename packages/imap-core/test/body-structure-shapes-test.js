/* eslint no-unused-expressions: 0, prefer-arrow-callback: 0 */

'use strict';

const { execFileSync } = require('child_process');
const path = require('path');
const chai = require('chai');
const expect = chai.expect;

/**
 * A host describing thousands of messages compiles the BODYSTRUCTURE code once for the shapes
 * of the lists it meets: lists of one storage kind keep that code from being compiled again
 * for every new kind. V8 itself tells (%HaveSameMap), in a node started with
 * --allow-natives-syntax.
 */
describe('BODYSTRUCTURE lists', function () {
    it('have one shape over the fixtures, whatever the part', function () {
        const script = `
            const fs = require('fs');
            const Indexer = require('./lib/indexer/indexer');
            const indexer = new Indexer();
            const lists = [];
            const walk = value => {
                if (!Array.isArray(value)) return;
                if (value.length) lists.push(value);
                value.forEach(walk);
            };
            const dir = './test/fixtures';
            for (const name of fs.readdirSync(dir).filter(name => name.endsWith('.eml'))) {
                const tree = indexer.parseMimeTree(fs.readFileSync(dir + '/' + name));
                walk(indexer.getBodyStructure(tree));
                walk(indexer.getBodyStructure(tree, { body: true }));
            }
            process.stdout.write(JSON.stringify({ lists: lists.length, same: lists.every(list => %HaveSameMap(list, lists[0])) }));`;
        const out = JSON.parse(
            execFileSync(process.execPath, ['--allow-natives-syntax', '-e', script], { cwd: path.join(__dirname, '..') }).toString()
        );
        // parts of every kind, their parameter and disposition lists
        expect(out.lists).to.be.above(100);
        expect(out.same).to.be.true;
    });
});
