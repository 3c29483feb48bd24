'use strict';

const libqp = require('libqp');

/**
 * BINARY (RFC 3516): a part's content with its Content-Transfer-Encoding undone. The FETCH
 * values come from the onFetch hook (`message.binary[path]`: the content can be a stream the
 * hook reads first); this is the decoding it applies.
 */

// encodings that leave the bytes as they are
const identity = new Set(['', '7bit', '8bit', 'binary']);

/**
 * @param {Object|null} node The part (resolveContentNode), or null for the whole message
 * @param {Buffer|String} encoded The part's content as stored ('binary' string or Buffer)
 * @return {Buffer} The decoded content
 * @throws {Error} with code 'UNKNOWN-CTE' for an encoding it cannot undo (RFC 3516 4.3)
 */
function decodeContent(node, encoded) {
    let bytes = Buffer.isBuffer(encoded) ? encoded : Buffer.from((encoded || '').toString(), 'binary');
    // a multipart or an encapsulated message is no encoded content of its own (RFC 2045 6.4)
    if (!node || node.multipart || node.message) {
        return bytes;
    }
    let header = (node.parsedHeader && node.parsedHeader['content-transfer-encoding']) || '';
    let encoding = [].concat(header)[0].toString().trim().toLowerCase();
    if (identity.has(encoding)) {
        return bytes;
    }
    if (encoding === 'base64') {
        return Buffer.from(bytes.toString('latin1'), 'base64');
    }
    if (encoding === 'quoted-printable') {
        return libqp.decode(bytes.toString('latin1'));
    }
    let err = new Error('Unknown Content-Transfer-Encoding: ' + encoding);
    err.code = 'UNKNOWN-CTE';
    throw err;
}

module.exports = { decodeContent };
