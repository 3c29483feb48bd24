'use strict';

const Indexer = require('./indexer');

// RFC 3516 4.4: a message APPENDed as a literal8 may hold parts with Content-Transfer-Encoding
// binary (NULs, bare CRs and LFs, lines of any length). Such bytes can only reach a client in a
// literal8, so a client without BINARY could not be given the message: the server converts the
// parts or refuses the APPEND. As Dovecot does, each such leaf part is stored base64 encoded
// (the Content-Transfer-Encoding line says so in its place, 76-character lines), so BODY
// answers base64 and BINARY the part's own bytes; the rest of the message keeps its bytes.

const CTE_LINE = /^content-transfer-encoding\s*:/i;
const BASE64_LINE_LENGTH = 76;

function isBinaryLeaf(node) {
    let encoding = !node.multipart && node.parsedHeader && node.parsedHeader['content-transfer-encoding'];
    return typeof encoding === 'string' && encoding.trim().toLowerCase() === 'binary';
}

/** The part's body as base64 lines and its header saying so. Returns whether it changed. */
function encodeLeaf(node) {
    if (!isBinaryLeaf(node)) {
        return (node.childNodes || []).map(encodeLeaf).some(Boolean);
    }
    let encoded = node.body.toString('base64');
    let lines = [];
    for (let i = 0; i < encoded.length; i += BASE64_LINE_LENGTH) {
        lines.push(encoded.substr(i, BASE64_LINE_LENGTH));
    }
    node.body = Buffer.from(lines.join('\r\n'), 'binary');
    node.size = node.body.length;
    node.lineCount = 0;
    node.header = node.header.map(line => (CTE_LINE.test(line) ? 'Content-Transfer-Encoding: base64' : line));
    node.parsedHeader['content-transfer-encoding'] = 'base64';
    return true;
}

/**
 * The message with every binary leaf part base64 encoded, or `raw` itself when it has none.
 *
 * @param {Buffer} raw The message as the client APPENDed it
 * @return {Promise<Buffer>}
 */
module.exports = async function binaryToBase64(raw) {
    let indexer = new Indexer();
    let mimeTree = indexer.parseMimeTree(raw);
    if (!encodeLeaf(mimeTree)) {
        return raw;
    }
    let chunks = [];
    for await (let chunk of indexer.rebuild(mimeTree).value) {
        chunks.push(chunk);
    }
    return Buffer.concat(chunks);
};
