/** What SELECT announces in FLAGS: $Important and every keyword a message of the folder carries. */
export function folderFlags(messages: ReadonlyArray<{ flags: readonly string[] }>): string[] {
  const keywords = new Map<string, string>([['$important', '$Important']]);
  // rows share one flag list per distinct combination: each list is read once
  const lists = new Set<readonly string[]>();
  for (const { flags } of messages) {
    if (lists.has(flags)) continue;
    lists.add(flags);
    for (const flag of flags) {
      const key = flag.toLowerCase();
      if (!flag.startsWith('\\') && !keywords.has(key)) keywords.set(key, flag);
    }
  }
  return [...keywords.values()];
}
