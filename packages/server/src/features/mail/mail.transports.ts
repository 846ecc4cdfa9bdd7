import nodemailer from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { insertDevMailbox } from './outbox.repo.js';

/** One outbox row on its way out. */
export interface OutgoingMail {
  id: string;
  kind: string;
  to: string;
  locale: string;
  subject: string;
  text: string;
  html: string;
}

export interface MailTransport {
  readonly name: 'smtp' | 'devMailbox';
  /** Resolves once the message is accepted; throws to have the worker retry it later. */
  send(mail: OutgoingMail): Promise<void>;
  close(): Promise<void>;
}

/**
 * Delivery over SMTP (SMTP_URL: `smtp://user:pass@host:587` upgrades with STARTTLS when the server
 * offers it; `smtps://…:465` is TLS from the start). The timeouts bound one attempt well inside
 * the worker's claim on the row (mail.worker.ts), so a hung server delays mail, never doubles it.
 */
export function smtpTransport(input: { url: string; from: string }): MailTransport {
  const transporter = nodemailer.createTransport(
    { url: input.url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 },
    { from: input.from },
  );
  const fromDomain = /@([^>\s]+)>?\s*$/.exec(input.from)?.[1] ?? 'localhost';
  return {
    name: 'smtp',
    async send(mail) {
      await transporter.sendMail({
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        // The outbox id in the Message-ID: a retry after a lost acknowledgement is recognisably
        // the same message.
        messageId: `<${mail.id}@${fromDomain}>`,
        headers: { 'Auto-Submitted': 'auto-generated', 'Content-Language': mail.locale, 'X-Foyer-Mail-Kind': mail.kind },
      });
    },
    async close() {
      transporter.close();
    },
  };
}

/** The http(s) links in a text part: what the dev mailbox shows as clickable and logs. */
export function linksIn(text: string): string[] {
  return [...new Set(text.match(/https?:\/\/[^\s<>"]+/g) ?? [])];
}

/**
 * FOYER_ENV=local without SMTP_URL: messages land in the dev_mailbox table, shown at /dev/mailbox,
 * and their links are logged, so a developer can follow a sign-up with no mail server at all.
 * Logging links is allowed here only: this transport never runs outside the local environment.
 */
export function devMailboxTransport(deps: { db: Kysely<DB>; clock: Clock; log: FastifyBaseLogger }): MailTransport {
  return {
    name: 'devMailbox',
    async send(mail) {
      await insertDevMailbox(deps.db, {
        id: mail.id,
        kind: mail.kind,
        to_address: mail.to,
        subject: mail.subject,
        text_body: mail.text,
        html_body: mail.html,
        delivered_at: deps.clock.now(),
      });
      deps.log.info({ to: mail.to, kind: mail.kind, links: linksIn(mail.text) }, 'mail delivered to the dev mailbox (/dev/mailbox)');
    },
    async close() {},
  };
}
