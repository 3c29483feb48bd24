'use strict';

const notifyDelivery = require('../notify-delivery');

module.exports = {
    state: ['Authenticated', 'Selected'],

    handler(command, callback, next) {
        // kept on the connection so that closing it ends the timer too (see _onClose)
        let idleTimeout = (this._idleTimeout = setTimeout(() => {
            if (typeof this._server.onIdleEnd === 'function') {
                this._server.onIdleEnd(this.selected && this.selected.mailbox, this.session);
            }
            this.send('* BYE IDLE terminated');
            setImmediate(() => this.close());
        }, this._server.options.idleTimeout || 30 * 60 * 1000));

        this._nextHandler = (token, next) => {
            this._nextHandler = false;
            this.idling = false;
            clearTimeout(idleTimeout);
            next(); // keep the parser flowing

            if (typeof this._server.onIdleEnd === 'function') {
                this._server.onIdleEnd(this.selected && this.selected.mailbox, this.session);
            }

            if (token.toUpperCase().trim() !== 'DONE') {
                return callback(new Error('Invalid Idle continuation (' + JSON.stringify(token) + ')'));
            }

            callback(null, {
                response: 'OK',
                message: 'IDLE terminated'
            });
        };

        this.idling = true;
        this.send('+ idling');
        if (this.notify) {
            // NOTIFY's push sends them, with MessageNew's fetch-atts, once IDLE no longer counts as running
            notifyDelivery.schedule(this);
        } else if (this.emitNotifications()) {
            // emit any pending notifications, and the search contexts' updates after them
            this.sendSearchUpdates(() => false);
        }

        if (typeof this._server.onIdleStart === 'function') {
            this._server.onIdleStart(this.selected && this.selected.mailbox, this.session);
        }

        return next(); // resume input parser. Normally this is done by callback() but we need the next input sooner
    }
};
