'use strict';

// Replaces WildDuck's lib/errors.js (a GELF client configured through wild-config), which
// pulled the whole mail server in. The host decides where engine exceptions go: setReporter().

const util = require('util');

// by default one line on stderr, without the command line (it can hold a password)
let reporter = err => {
    process.stderr.write('imap-core: ' + util.format('%s', (err && err.message) || err) + '\n');
};

/**
 * Where the engine's unexpected exceptions go. `report(err, meta)` gets the error and a small
 * record about the connection; it must not throw.
 */
module.exports.setReporter = report => {
    reporter = report;
};

/**
 * Adds an error's own fields (and those of its `meta`) to a log entry as `_key` fields, without
 * replacing fields the entry has (upstream's helper, used for the server's `loggelf` entries).
 */
module.exports.applyErrorLogMeta = (logEntry, err) => {
    for (const [key, value] of Object.entries(err ?? {})) {
        if (key === 'stack' || key === 'meta' || typeof value === 'object') {
            continue;
        }

        const logKey = `_${key.replace(/^_/, '')}`;
        if (!Object.hasOwn(logEntry, logKey)) {
            logEntry[logKey] = value;
        }
    }

    for (const [key, value] of Object.entries(err?.meta ?? {})) {
        if (typeof value === 'object') {
            continue;
        }

        const logKey = `_${key.replace(/^_/, '')}`;
        if (!Object.hasOwn(logEntry, logKey)) {
            logEntry[logKey] = value;
        }
    }

    return logEntry;
};

module.exports.notifyConnection = (connection, err, meta) => {
    err = err || {};
    if (err.code === 'ECONNRESET') {
        return;
    }
    let record = Object.assign({}, meta || {}, err.meta || {});
    if (connection) {
        if (connection.selected) {
            record.selected = connection.selected.mailbox;
        }
        if (connection.id) {
            record.sess = connection.id;
        }
        if (connection.session) {
            record.remoteAddress = connection.session.remoteAddress;
        }
    }
    try {
        reporter(err, record);
    } catch (E) {
        // a reporter that fails must not take the connection down
    }
};
