/** A folder snapshot's keywords (store/state-store.ts folderSnapshot): made once for every SELECT of it. */
const snapshotKeywords = new WeakMap<object, readonly string[]>();

/**
 * What SELECT announces in FLAGS: $Important and every keyword a message of the folder carries.
 * `messages` is read once per list: it must not change (a folder snapshot never does).
 */
export function folderFlags(messages: ReadonlyArray<{ flags: readonly string[] }>): string[] {
  let kept = snapshotKeywords.get(messages);
  if (!kept) {
    kept = keywordsOf(messages);
    snapshotKeywords.set(messages, kept);
  }
  return [...kept];
}

function keywordsOf(messages: ReadonlyArray<{ flags: readonly string[] }>): string[] {
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
