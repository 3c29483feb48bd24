import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { databaseFileName, openDatabase } from './db';
import { MailStore } from './mail-store';
import { Mirror } from './pg/mirror';
import { openPgState, type PgStateOptions, pgPool } from './pg/pg-state';
import { PgTokenVault } from './pg/pg-token-vault';
import { PgWriter } from './pg/pg-writer';
import { migratePg } from './pg/schema';
import { secretBox } from './pg/secret-box';
import { SecretStore } from './secrets';
import { accountId } from '../model/account-id';
import { tablesOf } from './tables';

/**
 * `mailbridge migrate-state`: the SQLite state of one node copied into PostgreSQL as it is.
 * The file is attached to an empty mirror (./pg/mirror.ts) and copied table by table, so every
 * row is sent as the mirror sends any change, folder ids turned into names on the way; UIDs,
 * UIDVALIDITY and MODSEQs are column values and stay what they were. The copy is then read
 * back from PostgreSQL and compared folder by folder before the command reports success.
 */

/** The SQLite tables, in the description's order, which their foreign keys accept. */
const tables = tablesOf('sqlite').map((t) => t.name);

export interface MigrationCount {
  accounts: number;
  folders: number;
  messages: number;
  secrets: number;
}

export async function migrateSqliteToPg(
  stateDir: string,
  target: Pick<PgStateOptions, 'connection' | 'secretKey'>,
): Promise<MigrationCount> {
  // opening it brings the file to the current schema, the one the mirror copies it into
  const source = new MailStore(openDatabase(stateDir));
  const file = SecretStore.open(stateDir);
  const folders = source.db.prepare('SELECT account, name FROM folders ORDER BY account, name').all() as Array<{
    account: string;
    name: string;
  }>;
  const accounts = [...new Set([...folders.map((f) => accountId(f.account)), ...file.mailboxes()])];

  const pool = pgPool(target.connection);
  const mirror = new Mirror(() => undefined);
  try {
    await migratePg(pool);
    // what PostgreSQL holds already is never overwritten
    const { rows: taken } = await pool.query<{ account: string }>(
      `SELECT lower(account) AS account FROM folders WHERE lower(account) = ANY($1)
       UNION SELECT mailbox FROM secrets WHERE mailbox = ANY($1)`,
      [accounts],
    );
    if (taken.length)
      throw new Error(
        `PostgreSQL already holds state of ${taken.map((t) => t.account).join(', ')}; nothing was copied`,
      );
    mirror.db.prepare('ATTACH DATABASE ? AS source').run(path.join(stateDir, databaseFileName));
    mirror.db.transaction(() => {
      for (const t of tables) mirror.db.exec(`INSERT INTO main.${t} SELECT * FROM source.${t}`);
    })();
    mirror.db.exec('DETACH DATABASE source');
    await new PgWriter(mirror, pool, null).committed();
    const vault = await PgTokenVault.open(pool, secretBox(target.secretKey));
    for (const mailbox of file.mailboxes()) {
      const record = file.get(mailbox);
      if (record) await vault.restore(mailbox, record);
    }
  } finally {
    mirror.close();
    await pool.end();
  }

  const copy = await openPgState(target);
  try {
    let messages = 0;
    for (const { account, name } of folders) {
      const rows = source.listMessages(account, name);
      messages += rows.length;
      const same =
        isDeepStrictEqual(copy.mail.folderState(account, name), source.folderState(account, name)) &&
        isDeepStrictEqual(copy.mail.listMessages(account, name), rows);
      if (!same) throw new Error(`the copy of ${account} ${name} differs from the SQLite state`);
    }
    for (const mailbox of file.mailboxes())
      if (!isDeepStrictEqual(copy.secrets.get(mailbox), file.get(mailbox)))
        throw new Error(`the copied tokens of ${mailbox} differ from secrets.json`);
    return { accounts: accounts.length, folders: folders.length, messages, secrets: file.mailboxes().length };
  } finally {
    await copy.close();
    source.close();
  }
}
