import type { Insertable, Selectable } from 'kysely';
import { preparedStatement } from '../../db/prepared.js';
import { randomId } from '../../lib/crypto.js';
import type { Db, UsersTable } from '../../db/schema.js';

export type UserRow = Selectable<UsersTable>;

export async function findUserByEmailKey(db: Db, emailKey: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email_key', '=', emailKey).executeTakeFirst();
}

// Decision 0029: read by many account calls; compiled once.
const userById = preparedStatement('foyer_user_by_id', ['id'], (db: Db, { id }: { id: string }) =>
  db.selectFrom('users').selectAll().where('id', '=', id),
);

export async function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  return (await userById(db, { id })).rows[0];
}

export async function insertUser(db: Db, row: Insertable<UsersTable>): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function setUserDeactivated(db: Db, id: string, at: number): Promise<void> {
  await db.updateTable('users').set({ deactivated_at: at, updated_at: at }).where('id', '=', id).execute();
}

/**
 * Stores the same password's hash made at today's cost, only while the account still has the hash
 * it replaces: a reset that committed meanwhile keeps its password.
 */
export async function rehashPassword(db: Db, id: string, hashes: { from: string; to: string }, at: number): Promise<void> {
  await db.updateTable('users').set({ password_hash: hashes.to, updated_at: at }).where('id', '=', id).where('password_hash', '=', hashes.from).execute();
}

export interface NewUser {
  email: string;
  emailKey: string;
  now: number;
  firstName?: string | null;
  lastName?: string | null;
  phoneNumber?: string | null;
  passwordHash?: string | null;
  locale?: string | null;
  verifiedAt?: number | null;
  orgId?: string | null;
}

/** Every new account row is made here, so a column added later has one default to decide. */
export function newUserRow(input: NewUser): UserRow {
  return {
    id: randomId(),
    email: input.email,
    email_key: input.emailKey,
    first_name: input.firstName ?? null,
    last_name: input.lastName ?? null,
    phone_number: input.phoneNumber ?? null,
    password_hash: input.passwordHash ?? null,
    locale: input.locale ?? null,
    email_verified_at: input.verifiedAt ?? null,
    deactivated_at: null,
    org_id: input.orgId ?? null,
    created_at: input.now,
    updated_at: input.now,
  };
}
