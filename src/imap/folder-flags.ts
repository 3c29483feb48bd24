/** What SELECT announces in FLAGS: $Important and every keyword a message of the folder carries. */
export function folderFlags(messages: ReadonlyArray<{ flags: readonly string[] }>): string[] {
  const keywords = new Map<string, string>([['$important', '$Important']]);
  for (const { flags } of messages)
    for (const flag of flags) {
      const key = flag.toLowerCase();
      if (!flag.startsWith('\\') && !keywords.has(key)) keywords.set(key, flag);
    }
  return [...keywords.values()];
}
