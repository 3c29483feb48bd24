/**
 * A migration shared by the SQLite and PostgreSQL schemas: rows written under an account's
 * configured spelling (capitals included) join its one spelling, lowercase
 * (src/model/account-id.ts). A row whose lowercase twin exists already is left as it was: no
 * account reads it any more.
 */
export function lowercaseAccounts(tables: ReadonlyArray<{ table: string; key: readonly string[] }>): string {
  return tables
    .map(({ table, key }) => {
      const twin = key.map((c) => `t.${c} = ${table}.${c}`).join(' AND ');
      return `UPDATE ${table} SET account = lower(account) WHERE account <> lower(account)
    AND NOT EXISTS (SELECT 1 FROM ${table} t WHERE t.account = lower(${table}.account)${twin ? ` AND ${twin}` : ''});`;
    })
    .join('\n');
}
