import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { NO_CONTROL_CHARACTERS } from '@foyer/contract';
import { z } from 'zod';
import type { Config } from '../../config.js';
import { AppError } from '../../lib/errors.js';
import { isLocalRequestHost, isLoopbackHost } from '../../lib/loopback.js';
import { READ_ERRORS } from '../../lib/http-schemas.js';
import { linksIn } from './mail.transports.js';
import { escapeHtml } from './mail.template.js';
import { findDevMailboxMessage, listDevMailbox, type DevMailboxRow } from './outbox.repo.js';

export const DEV_MAILBOX_PATH = '/dev/mailbox';
const SHOWN = 100;

/**
 * Only where nobody but the developer can reach it: the local environment bound to a loopback
 * address (it shows live sign-up and reset links), and only when mail goes nowhere else.
 */
export function devMailboxEnabled(config: Pick<Config, 'env' | 'mail' | 'host'>): boolean {
  return config.env === 'local' && config.mail.smtpUrl === undefined && isLoopbackHost(config.host);
}

/** The boot warning when the local environment would have served it but binds beyond loopback. */
export function devMailboxRefusedReason(config: Pick<Config, 'env' | 'mail' | 'host'>): string | undefined {
  if (config.env !== 'local' || config.mail.smtpUrl !== undefined || isLoopbackHost(config.host)) return undefined;
  return `HOST=${config.host} is not a loopback address: the dev mailbox (${DEV_MAILBOX_PATH}) is not served and mail waits in the outbox; bind to 127.0.0.1 or set SMTP_URL`;
}

export const DevMailboxMessage = z.object({
  id: z.string(),
  kind: z.string(),
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  html: z.string(),
  links: z.array(z.string()),
  deliveredAt: z.string(),
});
export const DevMailboxResponse = z.object({ messages: z.array(DevMailboxMessage) });
/** Text from the address bar: no control characters, which PostgreSQL would refuse with a 500 (NUL). */
const addressBarText = (max: number) => z.string().max(max).regex(NO_CONTROL_CHARACTERS, 'must not contain control characters');
const DevMailboxQuery = z.object({ to: addressBarText(254).optional() });

function toMessage(row: DevMailboxRow): z.infer<typeof DevMailboxMessage> {
  return {
    id: row.id,
    kind: row.kind,
    to: row.to_address,
    subject: row.subject,
    text: row.text_body,
    html: row.html_body,
    links: linksIn(row.text_body),
    deliveredAt: new Date(row.delivered_at).toISOString(),
  };
}

const STYLE = `body{font-family:system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1f2933}
main{max-width:860px;margin:0 auto;padding:24px}
article{background:#fff;border-radius:8px;padding:16px 20px;margin:16px 0}
h2{font-size:18px;margin:0 0 8px}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0 0 8px;font-size:14px}
dt{color:#52606d}dd{margin:0}
pre{white-space:pre-wrap;background:#f4f5f7;padding:12px;border-radius:6px;font-size:14px}
a{color:#0f766e;word-break:break-all}
`;

function page(messages: Array<z.infer<typeof DevMailboxMessage>>): string {
  const articles = messages.map((message) => {
    const links = message.links.map((link) => `<li><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></li>`).join('');
    return [
      '<article>',
      `<h2>${escapeHtml(message.subject)}</h2>`,
      '<dl>',
      `<dt>To</dt><dd>${escapeHtml(message.to)}</dd>`,
      `<dt>Sent</dt><dd><time datetime="${message.deliveredAt}">${message.deliveredAt}</time></dd>`,
      `<dt>Kind</dt><dd>${escapeHtml(message.kind)}</dd>`,
      `<dt>HTML part</dt><dd><a href="${DEV_MAILBOX_PATH}/${encodeURIComponent(message.id)}">view</a></dd>`,
      '</dl>',
      links === '' ? '' : `<ul>${links}</ul>`,
      `<pre>${escapeHtml(message.text)}</pre>`,
      '</article>',
    ].join('');
  });
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>Dev mailbox</title><link rel="stylesheet" href="${DEV_MAILBOX_PATH}.css"></head>`,
    '<body><main>',
    '<h1>Dev mailbox</h1>',
    `<p>Mail this local server sent (FOYER_ENV=local without SMTP_URL), newest first. As JSON: <a href="${DEV_MAILBOX_PATH}.json">${DEV_MAILBOX_PATH}.json</a>.</p>`,
    articles.length === 0 ? '<p>No mail yet.</p>' : articles.join('\n'),
    '</main></body></html>',
    '',
  ].join('\n');
}

/**
 * The local dev mailbox (decision 0009). Registered only when devMailboxEnabled: in every other
 * environment, on a non-loopback bind, and whenever SMTP_URL is set, these paths are plain 404s. Everything shown is
 * escaped; the page keeps to the site's CSP (its style sheet is a file, no inline script).
 */
export const devMailboxRoutes: FastifyPluginAsyncZod = async (app) => {
  // DNS rebinding: a page whose name resolves to 127.0.0.1 reaches this port, but says its own name.
  const ownName = new URL(app.config.publicUrl).hostname;
  app.addHook('onRequest', async (request) => {
    if (!isLocalRequestHost(request.headers.host, [ownName])) throw new AppError('notFound');
  });
  const load = async (to: string | undefined) => (await listDevMailbox(app.db, { to, limit: SHOWN })).map(toMessage);

  app.get(
    `${DEV_MAILBOX_PATH}.json`,
    { schema: { hide: true, querystring: DevMailboxQuery, response: { 200: DevMailboxResponse, ...READ_ERRORS } } },
    async (request, reply) => {
      void reply.header('cache-control', 'no-store');
      return { messages: await load(request.query.to) };
    },
  );

  app.get(DEV_MAILBOX_PATH, { schema: { hide: true, querystring: DevMailboxQuery } }, async (request, reply) => {
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(page(await load(request.query.to)));
  });

  app.get(`${DEV_MAILBOX_PATH}.css`, { schema: { hide: true } }, async (_request, reply) => {
    return reply.header('content-type', 'text/css; charset=utf-8').send(STYLE);
  });

  // The HTML part as a recipient's mail client shows it. Its inline styles need a CSP of its own:
  // styles only, no script, no network, sandboxed.
  app.get(`${DEV_MAILBOX_PATH}/:id`, { schema: { hide: true, params: z.object({ id: addressBarText(64) }) } }, async (request, reply) => {
    const row = await findDevMailboxMessage(app.db, request.params.id);
    if (row === undefined) throw new AppError('notFound');
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox")
      .header('cache-control', 'no-store')
      .send(row.html_body);
  });
};
