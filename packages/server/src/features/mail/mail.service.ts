import type { Locale } from '@foyer/contract';
import type { Config } from '../../config.js';
import { randomId } from '../../lib/crypto.js';
import type { UnitOfWork } from '../../lib/unit-of-work.js';
import { renderMail, type MailTemplate } from './mail.template.js';
import { outboxKeyOf, sealMail } from './outbox.crypto.js';
import { insertOutbox } from './outbox.repo.js';

export interface QueuedMail<Data> {
  to: string;
  locale: Locale;
  template: MailTemplate<Data>;
  data: Data;
}

/**
 * Puts one email in the outbox (decision 0009). Call it with the transaction of the change that
 * causes the email, so both are kept or neither is: no account without its verification mail,
 * no mail about a change that was rolled back. The message is rendered now, so the row is
 * complete on its own and a later template change never alters mail already promised. It is
 * sealed before it is written (decision 0012): its links are live tokens.
 * After the transaction commits, nudge the worker (`app.mail.nudge()`) so it goes out at once.
 */
export async function queueMail<Data>(uow: UnitOfWork, config: Pick<Config, 'secret'>, mail: QueuedMail<Data>): Promise<string> {
  const rendered = renderMail(mail.template, mail.locale, mail.data);
  const id = randomId();
  const { now } = uow;
  await insertOutbox(uow.db, {
    id,
    kind: mail.template.kind,
    to_address: mail.to,
    locale: mail.locale,
    sealed_content: sealMail(outboxKeyOf(config), { id, to: mail.to }, rendered),
    created_at: now,
    attempts: 0,
    next_attempt_at: now,
    locked_until: null,
    sent_at: null,
    bounced_at: null,
    last_error: null,
  });
  return id;
}

/** Links in mail are absolute: this service's public address and a web route (spec §2). */
export function absoluteLink(config: Pick<Config, 'publicUrl'>, path: string): string {
  return `${config.publicUrl}${path}`;
}
