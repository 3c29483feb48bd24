import type { FolderListing, FolderRole, ListScope } from './connector';
import type { Placement } from './message';
import { labelKey, labelOfKey } from './label-key';
import type { LabelView } from './labels';
import { Refusal } from './refusal';

/**
 * How the vendor's folders and labels appear as IMAP mailboxes. A vendor folder is a mailbox
 * of its own (INBOX by role or name, special-use by role); a label is a view under the labels
 * root (`Labels/Work`) holding every message that carries it, derived from the messages'
 * label keywords (state-applier.ts); a name under the root that no label has yet is the view
 * a COPY creates. What each operation means for each kind of mailbox (a folder move, a label
 * added or removed) is decided by the kind's module (mailbox-kinds/).
 */

/**
 * What a mailbox is: a vendor folder, the vendor's Drafts or Sent folder (which also take the
 * bridge's local drafts and Sent copies), a label view, or the Quarantine (quarantine-folder.ts).
 */
export type MailboxKindName = 'folder' | 'drafts' | 'sent' | 'label' | 'quarantine';

export interface ImapFolder {
  path: string;
  /** Key of its UID map and change journal: the vendor folder name, or labelKey() for a label view. */
  key: string;
  /** What the vendor lists for it: a folder, or every message carrying a label. */
  scope: ListScope;
  role: FolderRole;
  specialUse: string | null;
  kind: MailboxKindName;
}

const specialUse: Record<string, string> = {
  sent: '\\Sent',
  drafts: '\\Drafts',
  trash: '\\Trash',
  spam: '\\Junk',
  archive: '\\Archive',
};

/** Label names that can be IMAP mailbox names under the root: no wildcards or controls. */
const listableLabel = /^[^*%\x00-\x1f\x7f]+$/;

/** The label a mailbox is a view of, or null for a folder. */
export function labelViewOf(folder: ImapFolder): LabelView | null {
  return 'label' in folder.scope ? { key: folder.key, label: folder.scope.label } : null;
}

/** Whether the vendor's view of `msg` places it in the mailbox of `scope` (its folder, or a label it carries). */
export function inScope(msg: Placement, scope: ListScope): boolean {
  if ('label' in scope) return (msg.labels ?? []).includes(scope.label);
  return msg.folders.some((f) => f.toLowerCase() === scope.folder.toLowerCase());
}

/** The mailbox a path names (INBOX in any case, as RFC 3501 5.1 asks). */
export function mailboxAt(list: readonly ImapFolder[], path: string): ImapFolder | undefined {
  const inbox = path.toUpperCase() === 'INBOX';
  return list.find((f) => (inbox ? f.path === 'INBOX' : f.path === path));
}

export class MailboxMap {
  /**
   * @param labelsRoot IMAP parent of the label views; null hides labels.
   * @param onHidden told of a label that cannot be shown (its name is unusable or taken).
   */
  constructor(
    private readonly labelsRoot: string | null,
    private readonly onHidden: (label: string) => void,
  ) {}

  /** The vendor's list as mailboxes: its folders, then a view per label. */
  fromVendor(list: FolderListing): ImapFolder[] {
    const folders: ImapFolder[] = list.folders.map((f) => ({
      path: f.role === 'inbox' || f.name.toUpperCase() === 'INBOX' ? 'INBOX' : f.name,
      key: f.name,
      scope: { folder: f.name },
      role: f.role,
      specialUse: (f.role && specialUse[f.role]) || null,
      kind: f.role === 'drafts' || f.role === 'sent' ? f.role : 'folder',
    }));
    if (!this.labelsRoot) return folders;
    const taken = new Set(folders.map((f) => f.path));
    for (const label of list.labels ?? []) {
      const view = this.viewOf(label);
      if (view && !taken.has(view.path)) folders.push(view);
      else this.onHidden(label);
    }
    return folders;
  }

  /** The list with a view of each label only the bridge knows (label-folders.ts) that it lacks. */
  withLabels(list: ImapFolder[], labels: readonly string[]): ImapFolder[] {
    const taken = new Set(list.map((f) => f.path));
    const views = labels.flatMap((label) => {
      const view = this.viewOf(label);
      return view && !taken.has(view.path) ? [view] : [];
    });
    return views.length ? [...list, ...views] : list;
  }

  /**
   * The label a new label folder's path names (CREATE, RENAME's new name), or the refusal that
   * says why there can be no folder at `path`: only labels can be made (label-folders.ts).
   */
  labelFor(path: string, list: readonly ImapFolder[]): string {
    const root = this.labelsRoot;
    if (!root)
      throw new Refusal(
        'cannot',
        'The mail vendor API cannot create folders, and labels are not shown as folders here',
      );
    const made = `a label folder can be created as ${root}/<name>`;
    if (path === root) throw new Refusal('cannot', `${root} holds the label folders and is no folder itself; ${made}`);
    if (!path.startsWith(`${root}/`)) {
      const parent = list.find((f) => path.startsWith(`${f.path}/`) || (f.path === 'INBOX' && /^inbox\//i.test(path)));
      throw new Refusal(
        'cannot',
        parent
          ? `${parent.path} is a vendor folder, and the mail vendor API cannot create folders inside it; ${made}`
          : `The mail vendor API cannot create folders; ${made}`,
      );
    }
    const label = path.slice(root.length + 1);
    if (!listableLabel.test(label))
      throw new Refusal('cannot', 'A label folder name cannot hold the wildcards * and % or control characters');
    return label;
  }

  /** Whether `path` is the labels root, which holds the label folders and is none itself. */
  isRoot(path: string): boolean {
    return path === this.labelsRoot;
  }

  /** The view of a label, or null when labels are hidden or the name cannot be a mailbox. */
  private viewOf(label: string): ImapFolder | null {
    if (!this.labelsRoot || !listableLabel.test(label)) return null;
    return {
      path: `${this.labelsRoot}/${label}`,
      key: labelKey(label),
      scope: { label },
      role: null,
      specialUse: null,
      kind: 'label',
    };
  }

  /** Any name under the labels root is a label view, so COPY there creates the label without a CREATE first. */
  viewAt(path: string): ImapFolder | null {
    const root = this.labelsRoot;
    const label = root && path.startsWith(`${root}/`) ? path.slice(root.length + 1) : '';
    return label ? this.viewOf(label) : null;
  }

  /** The view a label view's state key belongs to. */
  viewByKey(key: string): ImapFolder | null {
    const label = labelOfKey(key);
    return label === null ? null : this.viewOf(label);
  }
}
