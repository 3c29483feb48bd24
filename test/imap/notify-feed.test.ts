import { expect, test } from 'vitest';
import { ChangeJournal } from '../../src/domain/change-journal';
import { createLogger } from '../../src/log';
import { accountId } from '../../src/model/account-id';
import { NotifyFeed, type NotifyTarget } from '../../src/imap/notify-feed';

/**
 * The NOTIFY feed runs inside the change journal's publication, which the state applier makes
 * once a change is durable: a session it cannot report to must not break the publication (the
 * journal's own sessions and the other NOTIFY sessions still hear of it), nor end the process
 * through an unhandled rejection.
 */

const account = accountId('ann@example.test');

function target(overrides: Partial<NotifyTarget>, heard: string[]): NotifyTarget {
  return {
    account,
    selectedKey: () => null,
    folderPath: async (key) => key.split('\u0000').pop() ?? null,
    messages: (path, events) => heard.push(`${path} ${events.join(' ')}`),
    name: (change) => heard.push(`name ${change.path}`),
    ...overrides,
  };
}

test('a session whose reports fail leaves the publication and the other sessions alone', async () => {
  const journal = new ChangeJournal();
  const warned: string[] = [];
  const logger = createLogger('fatal');
  logger.warn = ((obj: { err?: string }) => {
    warned.push(obj.err ?? '');
  }) as typeof logger.warn;
  const feed = new NotifyFeed(journal, logger);
  const heard: string[] = [];
  const broken = () => {
    throw new Error('socket gone');
  };
  feed.set('broken', target({ name: broken, messages: broken }, heard));
  feed.set('fine', target({}, heard));
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    expect(() => journal.named(account, { path: 'Labels/x' })).not.toThrow();
    expect(() => journal.publish(account, 'INBOX', [{ command: 'EXISTS', uid: 1, modseq: 2 }])).not.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 10));
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  expect(unhandled).toEqual([]);
  expect(heard).toEqual(['name Labels/x', `INBOX MessageNew`]);
  expect(warned).toEqual(['socket gone', 'socket gone']);
});
