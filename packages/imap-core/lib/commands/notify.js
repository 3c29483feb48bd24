'use strict';

const { parseNotify } = require('../notify');
const notifyDelivery = require('../notify-delivery');

// NOTIFY NONE | NOTIFY SET [STATUS] (filter events) ... (RFC 5465 3)

module.exports = {
    state: ['Authenticated', 'Selected'],
    schema: false,

    handler(command, callback) {
        if (typeof this._server.onNotify !== 'function') {
            return callback(null, { response: 'NO', message: 'NOTIFY not implemented' });
        }
        let spec;
        try {
            spec = parseNotify(command.attributes, !this.acceptUTF8Enabled);
        } catch (err) {
            return callback(null, { response: err.response, code: err.code, message: err.message });
        }
        notifyDelivery.setNotify(this, spec);
        let ok = () => callback(null, { response: 'OK', message: 'NOTIFY completed' });
        if (spec && spec.status) {
            return notifyDelivery.sendInitialStatus(this, spec, ok);
        }
        ok();
    }
};
