import type Nodemailer from 'nodemailer';
import { isLoopbackHostname } from '@foyer/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { loadOnUse } from '../../lib/load-on-use.js';
import { inClientSpan } from '../tracing/tracing.js';
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
  /** `force` also ends deliveries in progress (shutdown gave up on them); they then fail. */
  close(options?: { force?: boolean }): Promise<void>;
}

/** Connections kept open to the SMTP server; the worker keeps as many sends in flight. */
export const SMTP_CONNECTIONS = 4;

/**
 * Delivery over SMTP (SMTP_URL: `smtp://user:pass@host:587` upgrades with STARTTLS when the server
 * offers it; `smtps://…:465` is TLS from the start), over a few pooled connections, so a message
 * costs no new TCP and TLS handshake (decision 0012). A frozen server is given up on within
 * seconds: 5 s to connect, 5 s for its greeting, 15 s of silence at any later step. Those bound
 * one attempt well inside the worker's claim on the row (mail.worker.ts). The outbox retries with
 * its own back-off, so the pool never re-queues a message on a dropped connection itself.
 */
export function smtpTransport(input: { url: string; from: string; requireTls?: boolean }): MailTransport {
  const transporter = loadOnUse<typeof Nodemailer>('nodemailer').createTransport(
    {
      url: input.url,
      // STARTTLS or no delivery (smtpNeedsTls): the relay's password and the mail's links never go in clear.
      requireTLS: input.requireTls === true,
      pool: true,
      maxConnections: SMTP_CONNECTIONS,
      maxRequeues: 0,
      connectionTimeout: 5_000,
      greetingTimeout: 5_000,
      socketTimeout: 15_000,
    },
    { from: input.from },
  );
  const fromDomain = /@([^>\s]+)>?\s*$/.exec(input.from)?.[1] ?? 'localhost';
  const server = smtpServerOf(input.url);
  return {
    name: 'smtp',
    async send(mail) {
      // Decision 0026: a client span per message with the server and the mail's kind, never an address.
      await inClientSpan('smtp send', { 'network.protocol.name': 'smtp', ...server, 'foyer.mail.kind': mail.kind }, () =>
        transporter.sendMail({
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          // The outbox id in the Message-ID: a retry after a lost acknowledgement or a crash
          // (at least once) is recognisably the same message, and receivers can drop the copy.
          messageId: `<${mail.id}@${fromDomain}>`,
          headers: { 'Auto-Submitted': 'auto-generated', 'Content-Language': mail.locale, 'X-Foyer-Mail-Kind': mail.kind },
        }),
      );
    },
    async close(options) {
      transporter.close({ force: options?.force === true });
    },
  };
}

/**
 * ASVS V12.3.1: a deployed service sends mail (reset links, the relay's password) only encrypted.
 * `smtps://` is TLS from the start; `smtp://` must then upgrade with STARTTLS, or the send fails and
 * the mail waits in the outbox, as for a relay that is down. A relay on this machine (a local MTA
 * that relays onward itself) and the local and test environments may speak plain SMTP.
 */
export function smtpNeedsTls(url: string, deployed: boolean): boolean {
  if (!deployed || !url.startsWith('smtp://')) return false;
  return !isLoopbackHostname(new URL(url).hostname);
}

/** The SMTP server's host and port for a span: SMTP_URL without its credentials. */
function smtpServerOf(url: string): { 'server.address': string; 'server.port': number } {
  const parsed = new URL(url);
  const port = parsed.port === '' ? (parsed.protocol === 'smtps:' ? 465 : 587) : Number(parsed.port);
  return { 'server.address': parsed.hostname, 'server.port': port };
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
