'use strict';

// Replaces WildDuck's lib/metrics.js (a prom-client registry of the whole mail server), which the
// engine tells of connections and commands. mailbridge keeps these figures itself
// (src/ops/metrics.ts: sessions and command durations from its hooks), so here they are dropped.

module.exports.connectionStarted = () => {};

module.exports.connectionClosed = () => {};

module.exports.recordImapCommand = () => {};
