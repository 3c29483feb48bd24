'use strict';

/**
 * mailbridge (change 122): a debug line's arguments cost on every command (the command compiled
 * back to text, each response line compiled, a log entry object), though a host logging at a
 * higher level drops them all. The server's logger says whether the host's logger writes debug
 * lines, asked each time since a host can change its level while connections are open: a host
 * logger with pino's `isLevelEnabled` answers for itself, any other logger gets every line.
 */

/** Whether `host` (the logger given to the server) writes debug lines. */
function hostLogsDebug(host) {
    if (!host) {
        return false;
    }
    return typeof host.isLevelEnabled !== 'function' || host.isLevelEnabled('debug');
}

/** Whether a connection's `logger` wants debug lines (a stand-in without the method gets them). */
function logsDebug(logger) {
    return typeof logger.logsDebug !== 'function' || logger.logsDebug();
}

module.exports = { hostLogsDebug, logsDebug };
