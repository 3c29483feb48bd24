'use strict';

const parser = require('./imap-parser');
const compiler = require('./imap-compiler');
const compileStream = require('./imap-compile-stream');

module.exports = {
    parser,
    compiler,
    compileStream
};
