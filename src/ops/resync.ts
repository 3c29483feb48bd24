import type { AccountRegistry } from '../domain/account-registry';
import type { Logger } from '../log';

export interface ResyncResult {
  mailbox: string;
  folders: Array<{ folder: string; messages: number | null; error: string | null }>;
}

/**
 * `mailbridge resync`: a full reconciliation of every folder of the mailbox (or one), as the
 * poller's full polls do: removals and flag changes made elsewhere are taken over, every UID
 * the bridge gave out stays. A folder that fails is reported and the rest still run.
 */
export async function resyncMailbox(
  registry: AccountRegistry,
  mailbox: string,
  folderPath: string | undefined,
  logger: Logger,
): Promise<ResyncResult> {
  const view = registry.get(mailbox);
  if (!view) throw new Error(`${mailbox} is not bridged by this daemon`);
  let folders = await view.folders(true);
  if (folderPath !== undefined) {
    const folder = await view.folder(folderPath);
    if (!folder) throw new Error(`${mailbox} has no folder ${folderPath}`);
    folders = [folder];
  }
  const results: ResyncResult['folders'] = [];
  // one folder after another: a repair should not crowd out the clients' own requests
  for (const folder of folders) {
    try {
      await view.syncFolder(folder, 'full', 'repair');
      results.push({ folder: folder.path, messages: view.localStatus(folder).messages, error: null });
    } catch (err) {
      results.push({ folder: folder.path, messages: null, error: (err as Error).message });
    }
  }
  logger.info({ mailbox: view.account, folders: results.length }, 'resync done');
  return { mailbox: view.account, folders: results };
}
