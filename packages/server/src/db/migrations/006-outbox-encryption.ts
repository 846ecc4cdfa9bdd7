import { sql, type Kysely } from 'kysely';

interface ClearRow {
  id: string;
  subject: string;
  text_body: string;
  html_body: string;
}

/**
 * Mail at rest (decision 0012): subject and parts move into one `sealed_content` column, sealed
 * with a key from SECRET_KEY, and are deleted once the mail is delivered. A migration has no key,
 * so unsent mail of an older version is kept as `unsealed.<base64url>` and sealed by the mail
 * plugin at the next boot, before anything is sent; the clear columns go. Delivered mail keeps
 * who, what kind and when, never its body again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('mail_outbox').addColumn('sealed_content', 'text').execute();
  const pending = await sql<ClearRow>`select id, subject, text_body, html_body from mail_outbox where sent_at is null`.execute(db);
  for (const row of pending.rows) {
    const content = Buffer.from(JSON.stringify([row.subject, row.text_body, row.html_body]), 'utf8').toString('base64url');
    await sql`update mail_outbox set sealed_content = ${`unsealed.${content}`} where id = ${row.id}`.execute(db);
  }
  // SQLite drops a column by rewriting the table, one column per statement.
  for (const column of ['subject', 'text_body', 'html_body']) {
    await db.schema.alterTable('mail_outbox').dropColumn(column).execute();
  }
}

/** Brings the clear columns back empty: sealed bodies need the key, which a migration lacks. */
export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['subject', 'text_body', 'html_body']) {
    await db.schema
      .alterTable('mail_outbox')
      .addColumn(column, 'text', (c) => c.notNull().defaultTo(''))
      .execute();
  }
  await db.schema.alterTable('mail_outbox').dropColumn('sealed_content').execute();
}
