import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  APP_ROUTES,
  ENVIRONMENTS,
  FLAG_DEFAULTS,
  RuntimeConfig,
  SERVER_KINDS,
  SUPPORT_WIDGET_APP_ID,
  SUPPORT_WIDGET_REGIONS,
  TAG_MANAGER_ID,
  isCookieDomainOf,
  isLoopbackHostname,
  flagOverrideProblems,
  parseFlagOverrides,
  serverUrl,
  type Environment,
  type Flags,
  type ServerKind,
  type ServerUrls,
  type SupportWidgetRegion,
} from '@foyer/contract';
import { z } from 'zod';
import type * as Tldts from 'tldts';
import { loadOnUse } from './lib/load-on-use.js';
import { parseTrustProxy, type TrustProxy } from './lib/trust-proxy.js';
import { deployedServerUrls, localServerUrls } from './server-urls.js';

/** Environments that run on the public internet: real TLS, HSTS, required PUBLIC_URL. */
export const DEPLOYED_ENVIRONMENTS: readonly Environment[] = ['dev', 'staging', 'prod'];
export function isDeployed(env: Environment): boolean {
  return DEPLOYED_ENVIRONMENTS.includes(env);
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const DAY_MS = 24 * 60 * 60 * 1000;

// The server package folder, whether this file runs from src/ (tests) or dist/ (built).
const SERVER_PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** Letters, digits and hyphens per label, two labels at least: `localhost` has no Domain cookie. */
/** Whether browsers hold `domain` to be a public suffix (the Public Suffix List, private entries too, as Chromium does). */
function isPublicSuffix(domain: string): boolean {
  const { getPublicSuffix } = loadOnUse<typeof Tldts>('tldts');
  return getPublicSuffix(domain, { allowPrivateDomains: true }) === domain;
}

const COOKIE_DOMAIN_PATTERN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

const EnvSchema = z
  .object({
    FOYER_ENV: z.enum(ENVIRONMENTS).default('local'),
    PORT: int(1, 65535).default(8080),
    HOST: z.string().min(1).optional(),
    PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
    DATABASE_URL: z.string().min(1).default('./data/foyer.sqlite'),
    // PostgreSQL connections per instance; size it with max_connections ÷ instances (decision 0018).
    DATABASE_POOL_SIZE: int(1, 1000).optional(),
    // Decision 0018: the cookies' Domain attribute, never guessed; host-only cookies when unset.
    COOKIE_DOMAIN: z
      .string()
      .transform((value) => value.toLowerCase().replace(/^\./, ''))
      .pipe(z.string().regex(COOKIE_DOMAIN_PATTERN, 'must be a domain name of at least two labels, such as example.com'))
      .optional(),
    // Decision 0018: /metrics answers only with `Authorization: Bearer <METRICS_TOKEN>`; 404 when unset.
    METRICS_TOKEN: z
      .string()
      .min(32, 'must be at least 32 characters')
      .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
      .optional(),
    // Decision 0026: traces go over OTLP/HTTP to this collector (`<endpoint>/v1/traces`); none when unset.
    OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
    OTEL_SERVICE_NAME: z
      .string()
      .regex(/^[\w.-]{1,100}$/, 'must be 1 to 100 letters, digits, dots, hyphens or underscores')
      .default('foyer'),
    // `name=value,name=value` sent with every export (a collector's API key); never logged.
    OTEL_EXPORTER_OTLP_HEADERS: z
      .string()
      .optional()
      .transform((value, ctx) => {
        const headers = parseOtlpHeaders(value);
        if (headers === undefined) ctx.addIssue({ code: 'custom', message: 'must be name=value pairs separated by commas' });
        return headers ?? {};
      }),
    SERVER_URLS: z.string().optional(),
    FLAGS: z.string().optional(),
    // Decision 0024: an OFREP flag service (flagd, GO Feature Flag, Flipt…); without it the spec's
    // defaults and FLAGS answer. Its bearer token is never logged; an answer slower than the
    // timeout is not waited for (the page gets the fallback values).
    FLAGS_OFREP_URL: z.url({ protocol: /^https?$/ }).optional(),
    FLAGS_OFREP_TOKEN: z
      .string()
      .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
      .optional(),
    FLAGS_OFREP_TIMEOUT_MS: int(50, 5000).default(500),
    // Spec §9: the page's call timeout, 0 meaning none (the default); at most ten minutes.
    HTTP_TIMEOUT_MS: int(0, 600_000).default(0),
    RECAPTCHA_SITE_KEY: z.string().min(1).optional(),
    RECAPTCHA_SECRET: z.string().min(1).optional(),
    // Decision 0019: a confidential OpenID Connect client of GOOGLE_ISSUER (Google, or any issuer
    // that serves discovery). Locally, without a client id, a stand-in provider is started.
    GOOGLE_CLIENT_ID: z.string().min(1).optional(),
    GOOGLE_CLIENT_SECRET: z.string().min(1).optional(),
    GOOGLE_ISSUER: z.url({ protocol: /^https?$/ }).default('https://accounts.google.com'),
    // The local stand-in's port (default PORT + 1); 0 takes any free one.
    GOOGLE_STAND_IN_PORT: int(0, 65535).optional(),
    // Decision 0021: the DiscourseConnect secret shared with the forum (Discourse asks for at
    // least 10 characters); forum sign-in answers notFound without it. Never logged.
    DISCOURSE_CONNECT_SECRET: z.string().min(10, 'must be at least 10 characters').optional(),
    // The community terms version an acceptance is recorded under; a new version asks again.
    // Decision 0021: the community terms page /discourse-terms frames. Default: the forum's own
    // /tos (Discourse's terms page); in local a page this server serves, so it loads offline.
    COMMUNITY_TERMS_URL: z.url({ protocol: /^https?$/ }).optional(),
    // Decision 0021: a Segment-compatible batch endpoint the page sends its events to; off when unset.
    ANALYTICS_URL: z.url({ protocol: /^https?$/ }).optional(),
    // Decision 0025: the Google Tag Manager container the page loads after its first paint.
    GTM_ID: z.string().regex(TAG_MANAGER_ID, 'must be a Google Tag Manager container id such as GTM-AB12CD3').optional(),
    // Decision 0025: the support widget's app id and its workspace's hosting region, both or neither.
    SUPPORT_WIDGET_APP_ID: z.string().regex(SUPPORT_WIDGET_APP_ID, "must be the widget's app id: 1 to 32 letters and digits").optional(),
    SUPPORT_WIDGET_REGION: z
      .enum(SUPPORT_WIDGET_REGIONS, { error: `must be one of ${SUPPORT_WIDGET_REGIONS.join(', ')}: the region the widget's workspace is hosted in` })
      .optional(),
    COMMUNITY_TERMS_VERSION: z
      .string()
      .regex(/^[\w.-]{1,40}$/, 'must be 1 to 40 letters, digits, dots, hyphens or underscores')
      .default('1'),
    LOCKOUT_THRESHOLD: int(1, 100).default(10),
    SESSION_IDLE_DAYS: z.coerce.number().positive().max(365).default(7),
    SESSION_ABSOLUTE_DAYS: z.coerce.number().positive().max(365).default(30),
    LOG_LEVEL: z.enum(LOG_LEVELS).optional(),
    WEB_DIST: z.string().min(1).optional(),
    // OWASP password storage cheat sheet: argon2id m=19 MiB, t=2, p=1 (ASVS V11.4.2).
    ARGON2_MEMORY_KIB: int(64, 4 * 1024 * 1024).default(19456),
    ARGON2_TIME: int(1, 100).default(2),
    // Decision 0013: a hop count or the proxies' addresses; `true` is refused.
    TRUST_PROXY: z
      .string()
      .optional()
      .transform((value, ctx) => {
        const parsed = parseTrustProxy(value);
        if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.message });
        return parsed.ok ? parsed.value : false;
      }),
    // Mail (decision 0009): SMTP when set; otherwise the local dev mailbox, or queued until set.
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\/[^\s]+$/, 'must be an smtp:// or smtps:// URL')
      .optional(),
    MAIL_FROM: z.string().min(3).max(200).optional(),
    MAIL_POLL_MS: int(50, 3_600_000).default(2000),
    REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\/[^\s]+$/, 'must be a redis:// or rediss:// URL')
      .optional(),
    // Decision 0010: `off` disables every rate limit (the benchmark harness only); logged at warn.
    RATE_LIMITS: z.enum(['on', 'off']).default('on'),
    RECAPTCHA_VERIFY_URL: z.url({ protocol: /^https?$/ }).default('https://www.google.com/recaptcha/api/siteverify'),
    // Decision 0011: every wait has a deadline; slow clients and frozen dependencies are cut off.
    DATABASE_CONNECT_TIMEOUT_MS: int(100, 120_000).default(5000),
    DATABASE_TIMEOUT_MS: int(100, 600_000).default(5000),
    REQUEST_TIMEOUT_MS: int(500, 600_000).default(15_000),
    MAX_CONNECTIONS: int(1, 1_000_000).default(10_000),
    SHUTDOWN_GRACE_MS: int(100, 600_000).default(10_000),
    // Decision 0012: seals mail at rest. Required where it is deployed; never logged.
    SECRET_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  })
  .superRefine((env, ctx) => {
    if (isDeployed(env.FOYER_ENV)) {
      if (env.PUBLIC_URL === undefined) {
        ctx.addIssue({ code: 'custom', path: ['PUBLIC_URL'], message: `is required when FOYER_ENV=${env.FOYER_ENV}` });
      } else if (!env.PUBLIC_URL.startsWith('https:')) {
        // Secure cookies and HSTS need TLS on every deployed environment.
        ctx.addIssue({ code: 'custom', path: ['PUBLIC_URL'], message: `must be https when FOYER_ENV=${env.FOYER_ENV}` });
      }
    }
    // No user name or password either: they would travel in every mailed link and page.
    if (env.PUBLIC_URL !== undefined && !/^https?:\/\/[^/?#@]+\/?$/.test(env.PUBLIC_URL)) {
      ctx.addIssue({ code: 'custom', path: ['PUBLIC_URL'], message: 'must be an origin (scheme, host, optional port) without a path or credentials' });
    }
    // Test-only cheap hashing must never reach a deployment: OWASP's weakest listed argon2id
    // setting is m=7 MiB with t=5 (same work as m=19 MiB, t=2).
    if (isDeployed(env.FOYER_ENV) && (env.ARGON2_MEMORY_KIB < 7168 || env.ARGON2_MEMORY_KIB * env.ARGON2_TIME < 7168 * 5)) {
      ctx.addIssue({ code: 'custom', path: ['ARGON2_MEMORY_KIB'], message: 'is below the OWASP minimum (with ARGON2_TIME) for a deployed environment' });
    }
    // A site key makes the page send tokens that only the secret can verify: a deployment
    // without it would refuse every sign-up, so it fails at boot instead.
    if (isDeployed(env.FOYER_ENV) && env.RECAPTCHA_SITE_KEY !== undefined && env.RECAPTCHA_SECRET === undefined) {
      ctx.addIssue({ code: 'custom', path: ['RECAPTCHA_SECRET'], message: 'is required when RECAPTCHA_SITE_KEY is set' });
    }
    if (env.GOOGLE_CLIENT_ID !== undefined && env.GOOGLE_CLIENT_SECRET === undefined) {
      ctx.addIssue({ code: 'custom', path: ['GOOGLE_CLIENT_SECRET'], message: 'is required when GOOGLE_CLIENT_ID is set' });
    }
    // The ID token and the code travel over this connection: plain http only on a developer's machine.
    if (isDeployed(env.FOYER_ENV) && !env.GOOGLE_ISSUER.startsWith('https:')) {
      ctx.addIssue({ code: 'custom', path: ['GOOGLE_ISSUER'], message: `must be https when FOYER_ENV=${env.FOYER_ENV}` });
    }
    // The page frames the one and sends its visitors' events to the other: never over plain http.
    for (const name of ['COMMUNITY_TERMS_URL', 'ANALYTICS_URL'] as const) {
      if (isDeployed(env.FOYER_ENV) && env[name]?.startsWith('http:')) {
        ctx.addIssue({ code: 'custom', path: [name], message: `must be https when FOYER_ENV=${env.FOYER_ENV}` });
      }
    }
    // A misspelt flag or value would simply never take effect: refused like any other bad variable.
    for (const problem of env.FLAGS === undefined ? [] : flagOverrideProblems(env.FLAGS)) {
      ctx.addIssue({ code: 'custom', path: ['FLAGS'], message: problem });
    }
    // Flags decide what the page offers: off this machine, only over TLS (a sidecar may be plain http).
    if (isDeployed(env.FOYER_ENV) && env.FLAGS_OFREP_URL?.startsWith('http:') && !isLoopbackUrl(env.FLAGS_OFREP_URL)) {
      ctx.addIssue({ code: 'custom', path: ['FLAGS_OFREP_URL'], message: `must be https, or on this machine, when FOYER_ENV=${env.FOYER_ENV}` });
    }
    if (env.FLAGS_OFREP_TOKEN !== undefined && env.FLAGS_OFREP_URL === undefined) {
      ctx.addIssue({ code: 'custom', path: ['FLAGS_OFREP_TOKEN'], message: 'needs FLAGS_OFREP_URL' });
    }
    if (isDeployed(env.FOYER_ENV) && env.SECRET_KEY === undefined) {
      ctx.addIssue({ code: 'custom', path: ['SECRET_KEY'], message: `is required when FOYER_ENV=${env.FOYER_ENV}` });
    }
    // Decision 0010: the limits are all that slow credential stuffing from many accounts at once.
    if (env.FOYER_ENV === 'prod' && env.RATE_LIMITS === 'off') {
      ctx.addIssue({ code: 'custom', path: ['RATE_LIMITS'], message: 'must not be off when FOYER_ENV=prod' });
    }
    // A Domain the browser's host is not inside is dropped by the browser: no sign-in would hold.
    if (env.COOKIE_DOMAIN !== undefined) {
      const host = new URL(env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).hostname;
      if (!isCookieDomainOf(host, env.COOKIE_DOMAIN)) {
        ctx.addIssue({ code: 'custom', path: ['COOKIE_DOMAIN'], message: `must be the host of PUBLIC_URL (${host}) or a parent domain of it` });
      } else if (isPublicSuffix(env.COOKIE_DOMAIN)) {
        // `co.uk`, `github.io`: browsers refuse a cookie for a domain anyone can register under.
        ctx.addIssue({
          code: 'custom',
          path: ['COOKIE_DOMAIN'],
          message: `must not be a public suffix (${env.COOKIE_DOMAIN}): browsers refuse cookies for it`,
        });
      }
    }
    // The region decides where visitors' conversations are kept, so it is never guessed.
    if (env.SUPPORT_WIDGET_APP_ID !== undefined && env.SUPPORT_WIDGET_REGION === undefined) {
      ctx.addIssue({ code: 'custom', path: ['SUPPORT_WIDGET_REGION'], message: 'is required when SUPPORT_WIDGET_APP_ID is set (us, eu or ap)' });
    }
    if (env.SUPPORT_WIDGET_REGION !== undefined && env.SUPPORT_WIDGET_APP_ID === undefined) {
      ctx.addIssue({ code: 'custom', path: ['SUPPORT_WIDGET_APP_ID'], message: 'is required when SUPPORT_WIDGET_REGION is set' });
    }
    if (env.SESSION_IDLE_DAYS > env.SESSION_ABSOLUTE_DAYS) {
      ctx.addIssue({ code: 'custom', path: ['SESSION_IDLE_DAYS'], message: 'must not exceed SESSION_ABSOLUTE_DAYS' });
    }
  });

const ServerUrlsOverride = z.partialRecord(z.enum(SERVER_KINDS), z.url());

export type DatabaseConfig =
  | { kind: 'sqlite'; filename: string }
  /** poolSize: DATABASE_POOL_SIZE when set; the pool's own default otherwise (db/database.ts). */
  | { kind: 'postgres'; connectionString: string; poolSize?: number };

export interface Config {
  env: Environment;
  port: number;
  host: string;
  /** The origin the browser uses, without a trailing slash. */
  publicUrl: string;
  /** Host name of PUBLIC_URL: decides the cookies' Secure flag (spec §3). */
  publicHostname: string;
  /** COOKIE_DOMAIN: the session cookie's Domain (spec §3 parent domain); host-only when unset. */
  cookieDomain?: string;
  database: DatabaseConfig;
  serverUrls: ServerUrls;
  /** The spec's defaults with FLAGS over them: the answer without a flag service, or when it fails. */
  flags: Flags;
  /** Decision 0024: the OFREP flag service; absent means `flags` answers alone. */
  flagService?: FlagServiceConfig;
  /** Spec §9: the page's call timeout in ms; 0 means none. */
  httpTimeoutMs: number;
  reCaptchaSiteKey?: string;
  reCaptchaSecret?: string;
  /** Google sign-in (decision 0019); absent when it is off. */
  google?: GoogleConfig;
  /** Forum sign-in (decision 0021): the DiscourseConnect secret; absent when it is off. Never logged. */
  discourseConnectSecret?: string;
  /** The community terms version acceptances are recorded under. */
  communityTermsVersion: string;
  /** The community terms page the web frames (decision 0021); absent without a forum. */
  communityTermsUrl?: string;
  /** ANALYTICS_URL: where the page sends its events (decision 0021); analytics are off without it. */
  analyticsUrl?: string;
  /** GTM_ID: the tag manager container (decision 0025); none is loaded without it. */
  tagManagerId?: string;
  /** The support widget's app id and region (decision 0025); no widget without them. */
  supportWidget?: SupportWidget;
  lockoutThreshold: number;
  session: { idleMs: number; absoluteMs: number };
  logLevel: (typeof LOG_LEVELS)[number];
  webDist: string;
  argon2: { memoryCost: number; timeCost: number; parallelism: number };
  trustProxy: TrustProxy;
  mail: MailConfig;
  /** Rate-limit counters live here when set (shared by every instance); in memory otherwise. */
  redisUrl?: string;
  /** False only with RATE_LIMITS=off: no request is ever refused with rateLimitExeeded. */
  rateLimits: boolean;
  reCaptchaVerifyUrl: string;
  /** Decision 0011: connect and per-statement deadlines (SQLite's lock wait too); then 503. */
  databaseTimeouts: { connectMs: number; statementMs: number };
  /** Decision 0011: a whole request (headers and body) must arrive within requestTimeoutMs. */
  http: { requestTimeoutMs: number; maxConnections: number };
  /** Decision 0011: shutdown waits this long for requests and mail in flight, then exits anyway. */
  shutdownGraceMs: number;
  secret: SecretSource;
  /** Decision 0018: the bearer token /metrics asks for; metrics are off (404) without it. Never logged. */
  metricsToken?: string;
  /** Decision 0026: where spans are exported; absent when OTEL_EXPORTER_OTLP_ENDPOINT is unset. */
  tracing?: TracingConfig;
}

export interface TracingConfig {
  /** OTEL_EXPORTER_OTLP_ENDPOINT with the OTLP/HTTP traces path, `/v1/traces`. */
  tracesUrl: string;
  serviceName: string;
  /** OTEL_EXPORTER_OTLP_HEADERS; may hold a collector's credentials: never logged. */
  headers: Record<string, string>;
}

/** OTLP's header list, `api-key=abc,x-tenant=foyer` (values percent-encoded); undefined when malformed. */
export function parseOtlpHeaders(value: string | undefined): Record<string, string> | undefined {
  const headers: Record<string, string> = {};
  if (value === undefined) return headers;
  for (const pair of value.split(',')) {
    if (pair.trim() === '') continue;
    const match = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*=\s*(.*?)\s*$/.exec(pair);
    if (match?.[1] === undefined || match[2] === undefined) return undefined;
    try {
      headers[match[1].toLowerCase()] = decodeURIComponent(match[2]);
    } catch {
      return undefined;
    }
  }
  return headers;
}

export interface SupportWidget {
  appId: string;
  region: SupportWidgetRegion;
}

/**
 * Google sign-in (decision 0019): a configured OpenID Connect client, or, in `local` without
 * GOOGLE_CLIENT_ID, the stand-in provider that main.ts starts on its own port and then
 * replaces with the client it registered there. Never a stand-in outside `local`.
 */
export type GoogleConfig = { kind: 'client'; issuer: string; clientId: string; clientSecret: string } | { kind: 'standIn'; port: number };

function googleConfig(env: z.infer<typeof EnvSchema>): GoogleConfig | undefined {
  if (env.GOOGLE_CLIENT_ID !== undefined && env.GOOGLE_CLIENT_SECRET !== undefined) {
    return { kind: 'client', issuer: env.GOOGLE_ISSUER, clientId: env.GOOGLE_CLIENT_ID, clientSecret: env.GOOGLE_CLIENT_SECRET };
  }
  if (env.FOYER_ENV === 'local') return { kind: 'standIn', port: env.GOOGLE_STAND_IN_PORT ?? (env.PORT === 65535 ? 65534 : env.PORT + 1) };
  return undefined;
}

/**
 * Where the server's secret comes from (decision 0012): SECRET_KEY; without it, a key the local
 * environment generates once into its data directory, or the fixed key of `test`.
 */
export type SecretSource = { kind: 'env'; value: string } | { kind: 'localFile'; path: string } | { kind: 'test' };

function secretSource(env: { FOYER_ENV: Environment; SECRET_KEY?: string | undefined }, database: DatabaseConfig, cwd: string): SecretSource {
  if (env.SECRET_KEY !== undefined) return { kind: 'env', value: env.SECRET_KEY };
  if (env.FOYER_ENV === 'test') return { kind: 'test' };
  const dataDir = database.kind === 'sqlite' && database.filename !== ':memory:' ? dirname(database.filename) : resolve(cwd, 'data');
  return { kind: 'localFile', path: resolve(dataDir, 'secret-key') };
}

/** FLAGS_OFREP_URL (the base the OFREP paths are appended to), its token and its deadline. */
export interface FlagServiceConfig {
  url: string;
  /** Sent as `Authorization: Bearer …`; never logged. */
  token?: string;
  timeoutMs: number;
}

function isLoopbackUrl(url: string): boolean {
  return isLoopbackHostname(new URL(url).hostname);
}

export interface MailConfig {
  /** Contains credentials: never logged. */
  smtpUrl?: string;
  from: string;
  pollMs: number;
}

/** A configuration error names every bad variable, so boot fails with something actionable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** `PORT: Too big…; PUBLIC_URL: is required…`, each issue led by the variable it is about. */
function issueText(issues: readonly z.core.$ZodIssue[], prefix: string[] = []): string {
  return issues.map((issue) => `${[...prefix, ...issue.path.map(String)].join('.')}: ${issue.message}`).join('; ');
}

function parseServerUrls(text: string | undefined): ServerUrls {
  if (text === undefined) return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError('Invalid configuration: SERVER_URLS: is not valid JSON');
  }
  const parsed = ServerUrlsOverride.safeParse(json);
  if (!parsed.success) throw new ConfigError(`Invalid configuration: ${issueText(parsed.error.issues, ['SERVER_URLS'])}`);
  return Object.fromEntries(Object.entries(parsed.data).map(([kind, url]) => [kind, url.replace(/\/$/, '')])) as ServerUrls;
}

/** Whether a PostgreSQL connection string parses as the driver parses it (a socket's empty host, `user@/db`, included). */
function parsesAsPostgresUrl(value: string): boolean {
  return URL.canParse(value) || URL.canParse(value.replace('@/', '@localhost/'));
}

function parseDatabaseUrl(value: string, cwd: string, poolSize: number | undefined): DatabaseConfig {
  if (/^postgres(ql)?:\/\//.test(value)) {
    if (!parsesAsPostgresUrl(value)) throw new ConfigError('Invalid configuration: DATABASE_URL: is not a valid PostgreSQL connection URL');
    return { kind: 'postgres', connectionString: value, ...(poolSize === undefined ? {} : { poolSize }) };
  }
  const path = value.replace(/^sqlite:(\/\/)?/, '');
  if (path === ':memory:') return { kind: 'sqlite', filename: path };
  return { kind: 'sqlite', filename: isAbsolute(path) ? path : resolve(cwd, path) };
}

/** Where the local environment serves its stand-in community terms page (decision 0021). */
export const LOCAL_COMMUNITY_TERMS_PATH = '/dev/community-terms';

/** Decision 0021: COMMUNITY_TERMS_URL; else the local page in `local`; else the forum's /tos. */
function communityTermsUrl(
  env: { FOYER_ENV: Environment; COMMUNITY_TERMS_URL?: string | undefined },
  publicUrl: string,
  urls: ServerUrls,
): string | undefined {
  if (env.COMMUNITY_TERMS_URL !== undefined) return env.COMMUNITY_TERMS_URL;
  if (env.FOYER_ENV === 'local') return `${publicUrl}${LOCAL_COMMUNITY_TERMS_PATH}`;
  return urls.community === undefined ? undefined : `${urls.community}/tos`;
}

/** `{ [key]: value }` when there is a value, so optional fields stay absent rather than undefined. */
function optionalEntry<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

/**
 * Decision 0021: a forum sign-in answers only to the forum's own address, and only to one the
 * redirect rules accept (https, or plain http on this machine); any other would be refused on
 * every sign-in, so it stops the service at boot instead.
 */
function checkForumUrl(community: string | undefined): void {
  if (community === undefined) return;
  const url = new URL(community);
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHostname(url.hostname))) return;
  throw new ConfigError(
    `Invalid configuration: SERVER_URLS: community (${url.origin}) must be https, or plain http on this machine (localhost, *.localhost, 127.0.0.1, [::1]), while DISCOURSE_CONNECT_SECRET is set`,
  );
}

/** Reads the environment once; throws ConfigError naming each bad variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): Config {
  // An empty variable (`PUBLIC_URL=` in a .env file) means "not set", not "set to nothing".
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) throw new ConfigError(`Invalid configuration: ${issueText(parsed.error.issues)}`);
  const env = parsed.data;
  const deployed = isDeployed(env.FOYER_ENV);
  const publicUrl = (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, '');
  const defaults = deployed ? deployedServerUrls(env.FOYER_ENV, publicUrl) : localServerUrls(publicUrl);
  const database = parseDatabaseUrl(env.DATABASE_URL, cwd, env.DATABASE_POOL_SIZE);
  const google = googleConfig(env);
  const serverUrls: ServerUrls = { ...defaults, ...parseServerUrls(env.SERVER_URLS) };
  if (env.DISCOURSE_CONNECT_SECRET !== undefined) checkForumUrl(serverUrls.community);
  return {
    env: env.FOYER_ENV,
    port: env.PORT,
    host: env.HOST ?? (deployed ? '0.0.0.0' : 'localhost'),
    publicUrl,
    publicHostname: new URL(publicUrl).hostname,
    ...(env.COOKIE_DOMAIN === undefined ? {} : { cookieDomain: env.COOKIE_DOMAIN }),
    database,
    serverUrls,
    flags: { ...FLAG_DEFAULTS, ...parseFlagOverrides(env.FLAGS) },
    ...(env.FLAGS_OFREP_URL === undefined
      ? {}
      : {
          flagService: {
            url: env.FLAGS_OFREP_URL.replace(/\/$/, ''),
            ...optionalEntry('token', env.FLAGS_OFREP_TOKEN),
            timeoutMs: env.FLAGS_OFREP_TIMEOUT_MS,
          },
        }),
    httpTimeoutMs: env.HTTP_TIMEOUT_MS,
    ...(env.RECAPTCHA_SITE_KEY === undefined ? {} : { reCaptchaSiteKey: env.RECAPTCHA_SITE_KEY }),
    ...(env.RECAPTCHA_SECRET === undefined ? {} : { reCaptchaSecret: env.RECAPTCHA_SECRET }),
    ...(google === undefined ? {} : { google }),
    ...(env.DISCOURSE_CONNECT_SECRET === undefined ? {} : { discourseConnectSecret: env.DISCOURSE_CONNECT_SECRET }),
    communityTermsVersion: env.COMMUNITY_TERMS_VERSION,
    ...optionalEntry('communityTermsUrl', communityTermsUrl(env, publicUrl, serverUrls)),
    ...optionalEntry('analyticsUrl', env.ANALYTICS_URL),
    ...optionalEntry('tagManagerId', env.GTM_ID),
    ...(env.SUPPORT_WIDGET_APP_ID === undefined || env.SUPPORT_WIDGET_REGION === undefined
      ? {}
      : { supportWidget: { appId: env.SUPPORT_WIDGET_APP_ID, region: env.SUPPORT_WIDGET_REGION } }),
    lockoutThreshold: env.LOCKOUT_THRESHOLD,
    session: { idleMs: env.SESSION_IDLE_DAYS * DAY_MS, absoluteMs: env.SESSION_ABSOLUTE_DAYS * DAY_MS },
    logLevel: env.LOG_LEVEL ?? (env.FOYER_ENV === 'test' ? 'silent' : 'info'),
    webDist: env.WEB_DIST === undefined ? resolve(SERVER_PACKAGE_DIR, '../web/dist') : resolve(cwd, env.WEB_DIST),
    argon2: { memoryCost: env.ARGON2_MEMORY_KIB, timeCost: env.ARGON2_TIME, parallelism: 1 },
    trustProxy: env.TRUST_PROXY,
    mail: {
      ...(env.SMTP_URL === undefined ? {} : { smtpUrl: env.SMTP_URL }),
      from: env.MAIL_FROM ?? `Foyer <no-reply@${new URL(publicUrl).hostname}>`,
      pollMs: env.MAIL_POLL_MS,
    },
    ...(env.REDIS_URL === undefined ? {} : { redisUrl: env.REDIS_URL }),
    rateLimits: env.RATE_LIMITS === 'on',
    reCaptchaVerifyUrl: env.RECAPTCHA_VERIFY_URL,
    databaseTimeouts: { connectMs: env.DATABASE_CONNECT_TIMEOUT_MS, statementMs: env.DATABASE_TIMEOUT_MS },
    http: { requestTimeoutMs: env.REQUEST_TIMEOUT_MS, maxConnections: env.MAX_CONNECTIONS },
    shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
    secret: secretSource(env, database, cwd),
    ...(env.METRICS_TOKEN === undefined ? {} : { metricsToken: env.METRICS_TOKEN }),
    ...(env.OTEL_EXPORTER_OTLP_ENDPOINT === undefined
      ? {}
      : {
          tracing: {
            tracesUrl: `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`,
            serviceName: env.OTEL_SERVICE_NAME,
            headers: env.OTEL_EXPORTER_OTLP_HEADERS,
          },
        }),
  };
}

/** A kind's address, logging the spec's line when the environment has none (spec §8). */
export function lookupServerUrl(config: Config, kind: ServerKind, log: (message: string) => void): string | undefined {
  return serverUrl(config.serverUrls, kind, log);
}

/**
 * The browser's configuration: an explicit allow-list (never secrets such as RECAPTCHA_SECRET),
 * checked against the contract's schema so a drift fails at boot, not in the browser.
 */
export function buildRuntimeConfig(config: Config, log: (message: string) => void): RuntimeConfig {
  const appUrl = isDeployed(config.env) ? lookupServerUrl(config, 'app', log) : undefined;
  return RuntimeConfig.parse({
    env: config.env,
    serverUrls: config.serverUrls,
    flags: config.flags,
    ...(config.reCaptchaSiteKey === undefined ? {} : { reCaptchaSiteKey: config.reCaptchaSiteKey }),
    googleEnabled: config.google !== undefined,
    // Decision 0005: `/home` locally; the app's own site once deployed.
    defaultHome: appUrl ?? APP_ROUTES.home,
    ...optionalEntry('communityTermsUrl', config.communityTermsUrl),
    ...optionalEntry('analyticsUrl', config.analyticsUrl),
    ...optionalEntry('cookieDomain', config.cookieDomain),
    ...optionalEntry('tagManagerId', config.tagManagerId),
    ...(config.supportWidget === undefined ? {} : { supportWidget: config.supportWidget }),
    ...(config.httpTimeoutMs > 0 ? { httpTimeoutMs: config.httpTimeoutMs } : {}),
  });
}
