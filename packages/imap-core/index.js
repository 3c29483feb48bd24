'use strict';

module.exports.IMAPServer = require('./lib/imap-server').IMAPServer;
module.exports.imapHandler = require('./lib/handler/imap-handler');
