import type { Insertable, Kysely, Selectable, Transaction } from 'kysely';
import type { DB, UsersTable } from '../../db/schema.js';

export type UserRow = Selectable<UsersTable>;
type Db = Kysely<DB> | Transaction<DB>;

export async function findUserByEmailKey(db: Db, emailKey: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email_key', '=', emailKey).executeTakeFirst();
}

export async function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertUser(db: Db, row: Insertable<UsersTable>): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function setUserDeactivated(db: Db, id: string, at: number): Promise<void> {
  await db.updateTable('users').set({ deactivated_at: at, updated_at: at }).where('id', '=', id).execute();
}

export async function setPasswordHash(db: Db, id: string, passwordHash: string, at: number): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash, updated_at: at }).where('id', '=', id).execute();
}
