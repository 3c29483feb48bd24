'use strict';

/* eslint-disable no-unused-expressions */

const chai = require('chai');
const expect = chai.expect;
const net = require('net');
const IMAPServer = require('../index.js').IMAPServer;

chai.config.includeStack = true;

/** A pino-like logger at `level` ('debug' or 'warn') that keeps the debug lines it was given. */
function hostLogger(level) {
    let noop = () => false;
    let logger = {
        debugLines: [],
        level,
        isLevelEnabled: name => name !== 'debug' || logger.level === 'debug',
        debug: (...args) => logger.debugLines.push(args.map(a => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')),
        info: noop,
        warn: noop,
        error: noop,
        trace: noop,
        fatal: noop
    };
    return logger;
}

/** Connects, sends `a1 NOOP`, and resolves once its tagged answer came. */
function noop(port) {
    return new Promise((resolve, reject) => {
        let client = net.connect(port, '127.0.0.1');
        let received = '';
        client.on('data', chunk => {
            received += chunk.toString();
            if (received.startsWith('* OK') && !received.includes('a1 ')) {
                if (!client.sent) {
                    client.sent = true;
                    client.write('a1 NOOP\r\n');
                }
                return;
            }
            if (/\r\na1 OK[^\r]*\r\n$/.test(received)) {
                client.end();
                resolve(received);
            }
        });
        client.on('error', reject);
    });
}

describe('mailbridge change 122: debug lines only for a host that logs them', () => {
    let server;

    afterEach(done => (server ? server.close(done) : done()));

    const serve = logger =>
        new Promise(resolve => {
            server = new IMAPServer({ logger, closeTimeout: 100 });
            server.listen(0, '127.0.0.1', () => resolve(server.server.address().port));
        });

    it('makes no debug line when the host logs at a higher level', async () => {
        let logger = hostLogger('warn');
        let answer = await noop(await serve(logger));
        expect(answer).to.match(/a1 OK/);
        expect(logger.debugLines).to.deep.equal([]);
    });

    it('gives a host that logs debug lines the command and the answers', async () => {
        let logger = hostLogger('debug');
        await noop(await serve(logger));
        expect(logger.debugLines.some(line => line.includes('[%s] C:') && line.endsWith('a1 NOOP'))).to.be.true;
        expect(logger.debugLines.some(line => line.includes('[%s] S:') && line.includes('a1 OK'))).to.be.true;
    });

    it('asks the host each time: a level changed while connected counts from then on', async () => {
        let logger = hostLogger('warn');
        let port = await serve(logger);
        await noop(port);
        expect(logger.debugLines).to.deep.equal([]);
        logger.level = 'debug';
        await noop(port);
        expect(logger.debugLines.some(line => line.endsWith('a1 NOOP'))).to.be.true;
    });
});
