import type { MessageRow } from '../store';

/**
 * The rows of `rows` (ascending UIDs) whose UID the session sees: one walk over both when
 * `uidList` ascends, as the engine keeps it, instead of a set of the folder's UIDs per command.
 */
export function visibleRows(rows: readonly MessageRow[], uidList: readonly number[]): MessageRow[] {
  if (!ascending(uidList)) {
    const visible = new Set(uidList);
    return rows.filter((r) => visible.has(r.uid));
  }
  const out: MessageRow[] = [];
  let at = 0;
  for (const row of rows) {
    while (at < uidList.length && uidList[at] < row.uid) at++;
    if (at === uidList.length) break;
    if (uidList[at] === row.uid) out.push(row);
  }
  return out;
}

function ascending(list: readonly number[]): boolean {
  for (let i = 1; i < list.length; i++) if (list[i] <= list[i - 1]) return false;
  return true;
}
