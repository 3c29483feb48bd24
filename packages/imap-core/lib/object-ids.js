'use strict';

/**
 * OBJECTID (RFC 8474): the backend names a mailbox (MAILBOXID), a message (EMAILID) and a
 * thread (THREADID) with objectids, 1 to 255 characters of letters, digits, "_" and "-".
 */

const isObjectId = value => typeof value === 'string' && /^[A-Za-z0-9_-]{1,255}$/.test(value);

/** A FETCH or STATUS value: the id as a one-item list, or NIL when there is none. */
const objectIdValue = value => (isObjectId(value) ? [{ type: 'ATOM', value }] : null);

module.exports = { isObjectId, objectIdValue };
