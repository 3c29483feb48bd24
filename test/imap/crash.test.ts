import fs from 'node:fs';
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox';
import { control, mailbox, vendorFolder } from '../support/bridge-harness';
import { type DaemonSetup, killHard, setUpDaemon, startDaemon } from '../support/daemon';
import type { VendorMessage } from '../../src/upstream/types';
import { must } from '../support/must';

/**
 * The daemon is killed with SIGKILL right after answering OK to a MOVE, an APPEND of a draft,
 * a STORE and a COPY into a label folder; after a restart every one of those is still there,
 * under the UIDs the client was given.
 */

let sandbox: Sandbox;
let setup: DaemonSetup;

async function connect(): Promise<ImapFlow> {
  const client = new ImapFlow({
    host: '127.0.0.1',
    port: setup.imapPort,
    secure: false,
    doSTARTTLS: false,
    auth: { user: mailbox, pass: setup.password },
    logger: false,
  });
  await client.connect();
  return client;
}

beforeAll(async () => {
  sandbox = await startSandbox({ messages: 40 });
  setup = await setUpDaemon(sandbox);
});

afterAll(async () => {
  await sandbox?.close();
  fs.rmSync(setup.dir, { recursive: true, force: true });
});

test('what the client was told OK survives SIGKILL of the daemon', async () => {
  let daemon = await startDaemon(setup);
  let client = await connect();
  await client.mailboxOpen('INBOX');
  const [moving, flagging, labelling] = await vendorFolder(sandbox, 'INBOX');
  const uidOf = async (m: VendorMessage) =>
    ((await client.search({ header: { 'message-id': m.message_id } }, { uid: true })) || [])[0];

  const moved = await client.messageMove(String(await uidOf(moving)), 'Archive', { uid: true });
  const archiveUid = moved && [...(moved.uidMap?.values() ?? [])][0];
  const flagUid = await uidOf(flagging);
  await client.messageFlagsAdd(String(flagUid), ['\\Flagged'], { uid: true });
  const labelled = await client.messageCopy(String(await uidOf(labelling)), 'Labels/Keep', { uid: true });
  const labelUid = labelled && [...(labelled.uidMap?.values() ?? [])][0];
  const draft = Buffer.from(
    `From: ${mailbox}\r\nTo: bob@sandbox.test\r\nSubject: Unsent thoughts\r\n` +
      'Message-ID: <crash-draft@mailbridge.test>\r\n\r\nhalf written\r\n',
  );
  const appended = must(await client.append('Drafts', draft, ['\\Draft']), 'APPENDUID');
  await killHard(daemon);

  daemon = await startDaemon(setup);
  try {
    client = await connect();
    await client.mailboxOpen('Archive');
    const inArchive = must(
      await client.fetchOne(String(archiveUid), { envelope: true }, { uid: true }),
      'moved message',
    );
    expect(inArchive?.envelope?.messageId).toBe(moving.message_id);

    await client.mailboxOpen('INBOX');
    const flagged = must(
      await client.fetchOne(String(flagUid), { flags: true, envelope: true }, { uid: true }),
      'flagged message',
    );
    expect(flagged?.envelope?.messageId).toBe(flagging.message_id);
    expect(flagged?.flags?.has('\\Flagged')).toBe(true);
    expect(await uidOf(moving)).toBeUndefined();

    await client.mailboxOpen('Labels/Keep');
    const inLabel = must(
      await client.fetchOne(String(labelUid), { envelope: true }, { uid: true }),
      'labelled message',
    );
    expect(inLabel?.envelope?.messageId).toBe(labelling.message_id);

    await client.mailboxOpen('Drafts');
    const kept = await client.fetchOne(String(appended?.uid), { source: true }, { uid: true });
    expect(kept && (kept.source as Buffer).toString()).toContain('half written');
    await client.logout();

    // and the vendor agrees
    const all = await control<{ messages: VendorMessage[] }>(
      sandbox,
      'GET',
      `/messages?mailbox=${encodeURIComponent(mailbox)}`,
    );
    const byUid = new Map(all.messages.map((m) => [m.message_uid, m]));
    expect(byUid.get(moving.message_uid)?.folders).toEqual(['Archive']);
    expect(byUid.get(flagging.message_uid)?.is_starred).toBe(true);
    expect(byUid.get(labelling.message_uid)?.labels).toContain('Keep');
  } finally {
    await killHard(daemon);
  }
}, 120_000);
