import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

type OnUse = 'pg' | 'ioredis' | 'nodemailer' | '@node-saml/node-saml' | '@xmldom/xmldom' | 'tldts';

/**
 * A CommonJS dependency that only some configurations or flows use (PostgreSQL's and Redis's
 * clients, SMTP, the SAML libraries, the public-suffix list), loaded the first time it is needed instead of at start: a
 * service that never uses one does not hold its code and objects in memory. Node caches the
 * module, so every later call returns the same one at no cost.
 */
export function loadOnUse<T>(name: OnUse): T {
  return require(name) as T;
}
