/* eslint-env mocha */
/* eslint-disable prefer-arrow-callback */

'use strict';

// mailbridge (change 131): the indexer loads html-to-text when it first converts an HTML part

const chai = require('chai');
const expect = chai.expect;
const { execFileSync } = require('child_process');
const path = require('path');

const indexerPath = path.join(__dirname, '..', 'lib', 'indexer', 'indexer.js');

/** The modules a fresh node process holds after `script`, with `indexer` required. */
function loadedAfter(script) {
    const code = `const Indexer = require(${JSON.stringify(indexerPath)});${script};
process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
    return JSON.parse(execFileSync(process.execPath, ['-e', code]).toString());
}

const htmlOnly = [
    'From: a@example.com',
    'To: b@example.com',
    'Subject: html',
    'MIME-Version: 1.0',
    'Content-Type: text/html; charset=utf-8',
    '',
    '<p>Hello <b>world</b></p>',
    ''
].join('\r\n');

describe('indexer module loading', function () {
    this.timeout(10000);

    it('does not load html-to-text or he to describe messages', function () {
        const loaded = loadedAfter('new Indexer()');
        expect(loaded.filter(file => /node_modules\/(html-to-text|he)\//.test(file))).to.deep.equal([]);
    });

    it('makes the HTML of a text-only message, loading he then', function () {
        const textOnly = htmlOnly.replace('text/html', 'text/plain').replace('<p>Hello <b>world</b></p>', 'Tom & Jerry');
        const Indexer = require('../lib/indexer/indexer');
        const indexer = new Indexer();
        const maildata = indexer.getMaildata(indexer.parseMimeTree(Buffer.from(textOnly)));
        expect(maildata.html).to.deep.equal(['<p>Tom &amp; Jerry</p>']);
        const loaded = loadedAfter(`const i = new Indexer(); i.getMaildata(i.parseMimeTree(Buffer.from(${JSON.stringify(textOnly)})))`);
        expect(loaded.some(file => /node_modules\/he\//.test(file))).to.equal(true);
    });

    it('converts an HTML-only message to text, loading html-to-text then', function () {
        const Indexer = require('../lib/indexer/indexer');
        const indexer = new Indexer();
        const maildata = indexer.getMaildata(indexer.parseMimeTree(Buffer.from(htmlOnly)));
        expect(maildata.text.trim()).to.equal('Hello world');
        expect(maildata.html).to.deep.equal(['<p>Hello <b>world</b></p>']);
        const loaded = loadedAfter(`const i = new Indexer(); i.getMaildata(i.parseMimeTree(Buffer.from(${JSON.stringify(htmlOnly)})))`);
        expect(loaded.some(file => /node_modules\/html-to-text\//.test(file))).to.equal(true);
    });
});
