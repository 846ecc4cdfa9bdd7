import { PostgresAdapter, type Insertable, type Selectable } from 'kysely';
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

/**
 * The account's row, read inside a transaction as the one that holds its turn: on PostgreSQL the
 * row is locked (FOR NO KEY UPDATE, which foreign-key checks of rows pointing at it do not wait
 * for) until the transaction ends, so of two transactions that issue or end the account's emailed
 * links, or change what they were issued on (its address, its password), one waits for the other
 * and then reads what it committed. Every such transaction takes this before it touches a link
 * (tokens.ts), so they never hold each other's rows in opposite orders. On SQLite a plain read:
 * its write transactions already run one at a time.
 */
export async function lockAccount(db: Db, id: string): Promise<UserRow | undefined> {
  if (!db.isTransaction) throw new Error('lockAccount needs a transaction');
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return findUserById(db, id);
  return db.selectFrom('users').selectAll().where('id', '=', id).forNoKeyUpdate().executeTakeFirst();
}

export async function insertUser(db: Db, row: Insertable<UsersTable>): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

/** Deactivates an account (`deactivated` true) or lets it sign in again, as of `now`. */
export async function setUserDeactivated(db: Db, id: string, deactivated: boolean, now: number): Promise<void> {
  await db
    .updateTable('users')
    .set({ deactivated_at: deactivated ? now : null, updated_at: now })
    .where('id', '=', id)
    .execute();
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
