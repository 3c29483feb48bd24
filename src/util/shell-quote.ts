/** One argument as a POSIX shell word: as is when it needs no quoting, else in single quotes. */
export function shellWord(arg: string): string {
  return /^[\w./@%+=:,-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** ` --config FILE` for commands printed to users, or nothing when no file was used. */
export function configFlag(configFile: string | null | undefined): string {
  return configFile ? ` --config ${shellWord(configFile)}` : '';
}
