'use strict';

const imapHandler = require('../handler/imap-handler');
const { normalizeMailbox, utf7encode, filterFolders, generateFolderListing, hookErrorResponse } = require('../imap-tools');
const { parseListArguments } = require('../list-options');
const { parseStatusItems, enableCondstoreFor, statusResponse } = require('../status-items');

// tag LIST (SPECIAL-USE) "" "%" RETURN (SPECIAL-USE)

//"\\Sent", "\\Trash", "\\Junk", "\\Drafts", "\\Archive"
const XlistTags = new Map([
    ['INBOX', '\\Inbox'],
    ['\\Sent', '\\Sent'],
    ['\\Trash', '\\Trash'],
    ['\\Junk', '\\Spam'],
    ['\\Drafts', '\\Drafts'],
    ['\\Flagged', '\\Starred']
]);

module.exports = {
    state: ['Authenticated', 'Selected'],

    schema: [
        {
            name: 'selection',
            type: ['array'],
            optional: true
        },
        {
            name: 'reference',
            type: 'string'
        },
        {
            name: 'path',
            type: 'string'
        },
        {
            name: 'return',
            type: 'atom',
            optional: true
        },
        {
            name: 'return',
            type: 'array',
            optional: true
        }
    ],

    handler(command, callback) {
        let commandName = (command.command || '').toString().toUpperCase();
        let args = parseListArguments(command.attributes || [], typeof this._server.onStatus === 'function' ? parseStatusItems : null);
        if (args.error) {
            return callback(new Error(args.error + ' for ' + commandName));
        }
        let { extended, selection, returns } = args;
        if (returns.status) {
            enableCondstoreFor(this, returns.status);
        }

        // Check if LIST method is set
        if (typeof this._server.onList !== 'function') {
            return callback(null, {
                response: 'NO',
                message: commandName + ' not implemented'
            });
        }

        if (!extended && !args.patterns[0]) {
            // return the delimiter and the reference's root name (RFC 3501 6.3.8): its first
            // level through the delimiter, empty for an empty reference
            let delimiterAt = args.reference.indexOf('/');
            let root = delimiterAt < 0 ? args.reference : args.reference.slice(0, delimiterAt + 1);
            let response = {
                tag: '*',
                command: commandName,
                attributes: [
                    [
                        {
                            type: 'atom',
                            value: '\\Noselect'
                        }
                    ],
                    '/',
                    root
                ]
            };
            this.send(imapHandler.compiler(response));
            return callback(null, {
                response: 'OK'
            });
        }

        // Concat reference and mailbox. No special reference handling whatsoever
        let queries = args.patterns.map(pattern => normalizeMailbox(args.reference + pattern, !this.acceptUTF8Enabled));

        let logdata = {
            short_message: '[LIST]',
            _mail_action: 'list',
            _query: queries.join(' '),
            _user: this.session.user.id.toString(),
            _sess: this.id
        };

        let failed = err => {
            logdata._error = err.message;
            logdata._code = err.code;
            logdata._response = err.response;
            this._server.loggelf(logdata);

            return callback(
                null,
                hookErrorResponse(err, {
                    response: 'NO',
                    code: 'TEMPFAIL'
                })
            );
        };

        // what a plain LIST answers stays as it was; an extended one returns what was asked for (RFC 5258 3)
        // with the SUBSCRIBED selection a line says what is subscribed, as LSUB did, not whether it can be selected
        let show = {
            noselect: !selection.subscribed,
            children: !extended || returns.children,
            specialUse: !extended || returns.specialUse || selection.specialUse,
            subscribed: returns.subscribed
        };

        let listResponse = (list, subscribed) => {
            let matched = new Map();
            let listing = generateFolderListing(list);
            queries.forEach(query => filterFolders(listing, query).forEach(folder => folder && matched.set(folder.path, folder)));

            let listed = [];
            for (let folder of matched.values()) {
                let childInfo = selection.recursiveMatch && hasUnlistedSubscribedChild(folder.path, subscribed, matched);
                if (selection.specialUse && !folder.specialUse) {
                    continue;
                }
                if (selection.subscribed && !subscribed.has(folder.path) && !childInfo) {
                    continue;
                }
                listed.push({
                    folder,
                    line: listLine(this, commandName, folder, { ...show, subscribed: show.subscribed && subscribed.has(folder.path), childInfo })
                });
            }

            // LIST-STATUS (RFC 5819): each selectable mailbox's STATUS follows its LIST line; a
            // mailbox whose status cannot be read is listed without one
            let next = i => {
                for (; i < listed.length; i++) {
                    let { folder, line } = listed[i];
                    this.send(imapHandler.compiler(line));
                    if (returns.status && !(folder.flags || []).includes('\\Noselect')) {
                        return this._server.onStatus(folder.path, returns.status, this.session, (err, data) => {
                            if (!err && data && typeof data === 'object') {
                                this.send(imapHandler.compiler(statusResponse(line.attributes[2], returns.status, data)));
                            }
                            next(i + 1);
                        });
                    }
                }
                callback(null, {
                    response: 'OK'
                });
            };
            next(0);
        };

        this._server.onList(queries[0], this.session, (err, list) => {
            if (err) {
                return failed(err);
            }
            if (!show.subscribed || typeof this._server.onLsub !== 'function') {
                return listResponse(list, new Set());
            }
            this._server.onLsub(queries[0], this.session, (err, subscriptions) => {
                if (err) {
                    return failed(err);
                }
                let names = (subscriptions || []).map(folder => normalizeMailbox(typeof folder === 'string' ? folder : folder.path));
                listResponse(list, new Set(names));
            });
        });
    }
};

/**
 * One LIST (or XLIST) line: \\Noselect, the child attributes, the special use and
 * \\Subscribed as `show` says, and CHILDINFO extended data.
 */
function listLine(connection, commandName, folder, show) {
    let isXlist = commandName === 'XLIST';
    let flags = (folder.flags || []).filter(
        flag => (show.noselect && flag === '\\Noselect') || (show.children && /^\\Has(No)?Children$/.test(flag))
    );

    let specialUseFlag = show.specialUse && folder.specialUse;
    if (specialUseFlag) {
        if (isXlist && XlistTags.has(specialUseFlag)) {
            // rewrite flag to XLIST tag which is a bit different
            specialUseFlag = XlistTags.get(specialUseFlag);
        }
        flags.push(specialUseFlag);
    }
    if (show.subscribed) {
        flags.push('\\Subscribed');
    }

    let path = folder.path;
    if (!connection.acceptUTF8Enabled) {
        path = utf7encode(path);
    } else {
        path = Buffer.from(path);
    }

    if (isXlist && path === 'INBOX') {
        path = 'Inbox';
        flags.push(XlistTags.get('INBOX'));
    }

    let attributes = [flags.map(flag => ({ type: 'atom', value: flag })), '/', path];
    if (show.childInfo) {
        attributes.push([{ type: 'atom', value: 'CHILDINFO' }, ['SUBSCRIBED']]);
    }
    return { tag: '*', command: commandName, attributes };
}

/**
 * RECURSIVEMATCH (RFC 5258 3.5): whether a name has a subscribed descendant the patterns do not
 * list, which its line names with CHILDINFO ("SUBSCRIBED").
 */
function hasUnlistedSubscribedChild(path, subscribed, matched) {
    let prefix = path + '/';
    for (let name of subscribed) {
        if (name.startsWith(prefix) && !matched.has(name)) {
            return true;
        }
    }
    return false;
}
