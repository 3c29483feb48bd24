'use strict';

// RFC 822's source route, `<@relay1,@relay2:user@domain>` (RFC 5322 4.4 obs-route), is the adl of
// an ENVELOPE address (RFC 3501 7.4.2). nodemailer's addressparser drops it, so it is read here
// from the field's text and given back to the addresses the parser made.

/**
 * Skips a quoted string or a comment that starts at `start` (`"` or `(`), backslash escapes and
 * nested comments included.
 *
 * @param {String} text Field value
 * @param {Number} start Offset of the opening character
 * @return {Number} Offset just past the closing character (or the end of an unterminated one)
 */
function skipQuotedOrComment(text, start) {
    let depth = 0;
    for (let i = start; i < text.length; i++) {
        let chr = text.charAt(i);
        if (chr === '\\') {
            i++;
        } else if (text.charAt(start) === '"') {
            if (chr === '"' && i > start) {
                return i + 1;
            }
        } else if (chr === '(') {
            depth++;
        } else if (chr === ')' && !--depth) {
            return i + 1;
        }
    }
    return text.length;
}

/**
 * The contents of an angle-addr without comments and whitespace (quoted strings and domain
 * literals kept as they are).
 *
 * @param {String} text Field value
 * @param {Number} start Offset just past the `<`
 * @return {Object} {addr, end}: the contents, and the offset just past the `>`
 */
function readAngleAddr(text, start) {
    let addr = '';
    let i = start;
    while (i < text.length) {
        let chr = text.charAt(i);
        if (chr === '>') {
            return { addr, end: i + 1 };
        }
        if (chr === '"') {
            let end = skipQuotedOrComment(text, i);
            addr += text.slice(i, end);
            i = end;
        } else if (chr === '(') {
            i = skipQuotedOrComment(text, i);
        } else if (chr === '[') {
            let end = text.indexOf(']', i);
            end = end < 0 ? text.length : end + 1;
            addr += text.slice(i, end);
            i = end;
        } else {
            if (!/\s/.test(chr)) {
                addr += chr;
            }
            i++;
        }
    }
    return { addr, end: i };
}

/**
 * Source routes of the angle-addrs of an address field, in the order they are written.
 *
 * @param {String} text Field value
 * @return {Array} [{route: '@relay1,@relay2', mailbox: 'user@domain'}]
 */
function sourceRoutes(text) {
    let routes = [];
    let i = 0;
    while (i < text.length) {
        let chr = text.charAt(i);
        if (chr === '"' || chr === '(') {
            i = skipQuotedOrComment(text, i);
        } else if (chr === '<') {
            let { addr, end } = readAngleAddr(text, i + 1);
            let colon = addr.indexOf(':');
            if (addr.charAt(0) === '@' && colon > 0) {
                routes.push({ route: addr.slice(0, colon), mailbox: addr.slice(colon + 1) });
            }
            i = end;
        } else {
            i++;
        }
    }
    return routes;
}

/**
 * Gives each address that addressparser made from an angle-addr with a source route that route,
 * as `route`. Both lists are in the field's order, so each route goes to the next address (group
 * members included) with its mailbox; an address the parser rewrote keeps no route.
 *
 * @param {String} text Field value
 * @param {Array} addresses addressparser's result for it, changed in place
 * @return {Array} addresses
 */
module.exports = function withSourceRoutes(text, addresses) {
    let routes = sourceRoutes(text);
    let give = addr => {
        if (addr.group) {
            addr.group.forEach(give);
        } else if (routes.length && (addr.address || '').toLowerCase() === routes[0].mailbox.toLowerCase()) {
            addr.route = routes.shift().route;
        }
    };
    addresses.forEach(give);
    return addresses;
};
