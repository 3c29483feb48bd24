'use strict';

const libmime = require('libmime');
const createEnvelope = require('./create-envelope');

class BodyStructure {
    constructor(tree, options) {
        this.tree = tree;
        this.options = options || {};
        this.currentPath = '';
        this.bodyStructure = this.createBodystructure(this.tree, this.options);
    }

    create() {
        return this.bodyStructure;
    }

    /**
     * Generates an object out of parsed mime tree, that can be
     * serialized into a BODYSTRUCTURE string
     *
     * @param {Object} tree Parsed mime tree (see mimeparser.js for input)
     * @param {Object} [options] Optional options object
     * @param {Boolean} [options.contentLanguageString] If true, convert single element array to string for Content-Language
     * @param {Boolean} [options.upperCaseKeys] If true, use only upper case key names
     * @param {Boolean} [options.skipContentLocation] If true, do not include Content-Location in the output
     * @param {Boolean} [options.body] If true, skip extension fields (needed for BODY)
     * @param {Object} Object structure in the form of BODYSTRUCTURE
     */
    createBodystructure(tree, options) {
        options = options || {};

        let walker = node => {
            switch ((node.parsedHeader['content-type'] || {}).type) {
                case 'multipart':
                    return this.processMultipartNode(node, options);
                case 'text':
                    return this.processTextNode(node, options);
                case 'message':
                    if (node.parsedHeader['content-type'].subtype === 'rfc822' && node.message && !options.attachmentRFC822) {
                        return this.processRFC822Node(node, options);
                    }
                // fall through
                default:
                    return this.processAttachmentNode(node, options);
            }
        };
        return walker(tree);
    }

    /**
     * Generates a list of basic fields any non-multipart part should have
     *
     * @param {Object} node A tree node of the parsed mime tree
     * @param {Object} [options] Optional options object (see createBodystructure for details)
     * @return {Array} A list of basic fields
     */
    getBasicFields(node, options) {
        let bodyType = (node.parsedHeader['content-type'] && node.parsedHeader['content-type'].type) || null;
        let bodySubtype = (node.parsedHeader['content-type'] && node.parsedHeader['content-type'].subtype) || null;
        let contentTransfer = node.parsedHeader['content-transfer-encoding'] || '7bit';

        if (!bodyType || !bodySubtype) {
            // prevent strange content types like (NIL "/ms-word") that may break some clients
            if (bodyType === 'text' || bodySubtype === 'plain') {
                bodyType = 'text';
                bodySubtype = 'plain';
            } else {
                bodyType = 'application';
                bodySubtype = 'octet-stream';
            }
        }

        return [
            // body type
            options.upperCaseKeys ? (bodyType && bodyType.toUpperCase()) || null : bodyType,

            // body subtype
            options.upperCaseKeys ? (bodySubtype && bodySubtype.toUpperCase()) || null : bodySubtype,

            // body parameter parenthesized list
            this.bodyParams(node, bodyType, options),

            // body id
            node.parsedHeader['content-id'] || null,

            // body description
            node.parsedHeader['content-description'] || null,

            // body encoding
            options.upperCaseKeys ? (contentTransfer && contentTransfer.toUpperCase()) || '7bit' : contentTransfer,

            // body size
            node.size
        ];
    }

    /**
     * Generates a list of extension fields any non-multipart part should have
     *
     * @param {Object} node A tree node of the parsed mime tree
     * @param {Object} [options] Optional options object (see createBodystructure for details)
     * @return {Array} A list of extension fields
     */
    getExtensionFields(node, options) {
        options = options || {};

        let languageString = node.parsedHeader['content-language'] && node.parsedHeader['content-language'].replace(/[ ,]+/g, ',').replace(/^,+|,+$/g, '');
        let language = (languageString && languageString.split(',')) || null;
        let data;

        // if `contentLanguageString` is true, then use a string instead of single element array
        if (language && language.length === 1 && options.contentLanguageString) {
            language = language[0];
        }

        data = [
            // body MD5
            node.parsedHeader['content-md5'] || null,

            // body disposition
            (node.parsedHeader['content-disposition'] && [
                options.upperCaseKeys ? node.parsedHeader['content-disposition'].value.toUpperCase() : node.parsedHeader['content-disposition'].value,
                (node.parsedHeader['content-disposition'].params &&
                    node.parsedHeader['content-disposition'].hasParams &&
                    this.paramList(node.parsedHeader['content-disposition'].params, options)) ||
                    null
            ]) ||
                null,

            // body language
            language
        ];

        // if `skipContentLocation` is true, do not include Content-Location in output
        //
        // NB! RFC3501 has an errata with content-location type, it is described as
        // 'A string list' (eg. an array) in RFC but the errata page states
        // that it is a string (http://www.rfc-editor.org/errata_search.php?rfc=3501)
        // see note for 'Section 7.4.2, page 75'
        if (!options.skipContentLocation) {
            // body location
            data.push(node.parsedHeader['content-location'] || null);
        }

        return data;
    }

    /**
     * Body parameters of a non-multipart part. A text part without a charset parameter gets
     * the RFC 2045 default, charset us-ascii, as the message says nothing else.
     *
     * @param {Object} node A tree node of the parsed mime tree
     * @param {String} bodyType The part's media type
     * @param {Object} [options] Optional options object (see createBodystructure for details)
     * @return {Array|null} Flat list of names and values, or null for none
     */
    bodyParams(node, bodyType, options) {
        let contentType = node.parsedHeader['content-type'];
        let params = (contentType && contentType.hasParams && contentType.params) || {};
        let list = this.paramList(params, options);
        if (bodyType === 'text' && !Object.keys(params).some(key => key.toLowerCase() === 'charset')) {
            list.push(options.upperCaseKeys ? 'CHARSET' : 'charset', 'us-ascii');
        }
        return list.length ? list : null;
    }

    /**
     * Names and values of a header's parameters, one after the other, each value decoded
     *
     * @param {Object} params Parameter values by name
     * @param {Object} [options] Optional options object (see createBodystructure for details)
     * @return {Array} Flat list of names and values
     */
    paramList(params, options) {
        let list = [];
        for (let key of Object.keys(params)) {
            let value = params[key];
            try {
                value = Buffer.from(libmime.decodeWords(value).trim());
            } catch (E) {
                // failed to parse value
            }
            list.push(options.upperCaseKeys ? key.toUpperCase() : key, value);
        }
        return list;
    }

    /**
     * Processes a node with content-type=multipart/*
     *
     * @param {Object} node A tree node of the parsed mime tree
     * @param {Object} [options] Optional options object (see createBodystructure for details)
     * @return {Array} BODYSTRUCTURE for a multipart part
     */
    processMultipartNode(node, options) {
        options = options || {};

        let data = [];
        if (node.childNodes) {
            for (let tree of node.childNodes) {
                data.push(this.createBodystructure(tree, options));
            }
        } else {
            data.push([]);
        }
        // body subtype
        data.push(options.upperCaseKeys ? (node.multipart && node.multipart.toUpperCase()) || null : node.multipart);

        if (options.body) {
            // BODY ends with the subtype: the parameter list is already extension data (RFC 3501 body-ext-mpart)
            return data;
        }

        // body parameter parenthesized list
        data.push(
            (node.parsedHeader['content-type'] &&
                node.parsedHeader['content-type'].hasParams &&
                this.paramList(node.parsedHeader['content-type'].params, options)) ||
                null
        );

        // skip body MD5 from extension fields
        let extension = this.getExtensionFields(node, options);
        for (let i = 1; i < extension.length; i++) {
            data.push(extension[i]);
        }
        return data;
    }

    /**
     * Processes a node with content-type=text/*
     *
     * @param {Object} node A tree node of the parsed mime tree
     * @param {Object} [options] Optional options object (see createBodystructure for details)
     * @return {Array} BODYSTRUCTURE for a text part
     */
    processTextNode(node, options) {
        options = options || {};

        let data = this.getBasicFields(node, options);
        data.push(node.lineCount);

        if (!options.body) {
            data.push(...this.getExtensionFields(node, options));
        }

        return data;
    }

    /**
     * Processes a non-text, non-multipart node
     *
     * @param {Object} node A tree node of the parsed mime tree
     * @param {Object} [options] Optional options object (see createBodystructure for details)
     * @return {Array} BODYSTRUCTURE for the part
     */
    processAttachmentNode(node, options) {
        options = options || {};

        let data = this.getBasicFields(node, options);

        if (!options.body) {
            data.push(...this.getExtensionFields(node, options));
        }

        return data;
    }

    /**
     * Processes a node with content-type=message/rfc822
     *
     * @param {Object} node A tree node of the parsed mime tree
     * @param {Object} [options] Optional options object (see createBodystructure for details)
     * @return {Array} BODYSTRUCTURE for a text part
     */
    processRFC822Node(node, options) {
        options = options || {};

        let data = this.getBasicFields(node, options);

        data.push(createEnvelope(node.message.parsedHeader));
        data.push(this.createBodystructure(node.message, options));
        data.push(node.lineCount);

        if (!options.body) {
            data.push(...this.getExtensionFields(node, options));
        }

        return data;
    }
}

// Expose to the world
module.exports = BodyStructure;
