import { section, useServers } from './harness';

/**
 * LIST-EXTENDED (RFC 5258) with SPECIAL-USE (RFC 6154), against Dovecot holding the same
 * folders: `Labels` is the parent of the label folders, a name that holds no messages
 * (\Noselect), whatever the RETURN options.
 */

const servers = useServers();

section('RFC 6154 RETURN (SPECIAL-USE)', servers, [
  { name: 'every folder, the \\Noselect parent kept', commands: ['LIST "" "*" RETURN (SPECIAL-USE)'] },
  { name: 'only the special-use folders', commands: ['LIST (SPECIAL-USE) "" "*" RETURN (SPECIAL-USE)'] },
]);
