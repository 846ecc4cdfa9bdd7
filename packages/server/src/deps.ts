import type { Kysely } from 'kysely';
import type { Config } from './config.js';
import type { DB } from './db/schema.js';
import type { FlagService } from './features/flags/flag-service.js';
import type { Dictionaries } from './features/i18n/dictionaries.js';
import type { MailWorker } from './features/mail/mail.worker.js';
import type { RedirectPolicy } from './features/redirects/redirect-policy.js';
import type { Clock } from './lib/clock.js';
import type { PasswordHasher } from './lib/passwords.js';
import type { RateLimiter } from './lib/rate-limit.js';

/**
 * What services need, passed explicitly (never module-level singletons). The Fastify instance
 * carries the same fields as decorations, so a route hands `fastify` straight to a service.
 */
export interface Deps {
  db: Kysely<DB>;
  config: Config;
  clock: Clock;
  passwords: PasswordHasher;
  /** The redirect allow-list of this configuration (features/redirects). */
  redirects: RedirectPolicy;
}

declare module 'fastify' {
  interface FastifyInstance {
    db: Kysely<DB>;
    config: Config;
    clock: Clock;
    passwords: PasswordHasher;
    redirects: RedirectPolicy;
    dictionaries: Dictionaries;
    /** Feature flags through OpenFeature (decision 0024): the page and the OFREP routes read them. */
    flags: FlagService;
    /** The outbox worker: a route calls `app.mail.nudge()` after a transaction that queued mail. */
    mail: MailWorker;
    /** Shared by every feature's rate rules (lib/rate-limit.ts). */
    rateLimiter: RateLimiter;
  }
}
