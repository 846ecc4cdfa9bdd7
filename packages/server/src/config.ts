import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  APP_ROUTES,
  ENVIRONMENTS,
  FLAG_DEFAULTS,
  RuntimeConfig,
  SERVER_KINDS,
  parseFlagOverrides,
  serverUrl,
  type Environment,
  type Flags,
  type ServerKind,
  type ServerUrls,
} from '@foyer/contract';
import { z } from 'zod';
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

const EnvSchema = z
  .object({
    FOYER_ENV: z.enum(ENVIRONMENTS).default('local'),
    PORT: int(1, 65535).default(8080),
    HOST: z.string().min(1).optional(),
    PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
    DATABASE_URL: z.string().min(1).default('./data/foyer.sqlite'),
    SERVER_URLS: z.string().optional(),
    FLAGS: z.string().optional(),
    RECAPTCHA_SITE_KEY: z.string().min(1).optional(),
    RECAPTCHA_SECRET: z.string().min(1).optional(),
    GOOGLE_CLIENT_ID: z.string().min(1).optional(),
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
    SMTP_URL: z.string().regex(/^smtps?:\/\/[^\s]+$/, 'must be an smtp:// or smtps:// URL').optional(),
    MAIL_FROM: z.string().min(3).max(200).optional(),
    MAIL_POLL_MS: int(50, 3_600_000).default(2000),
    REDIS_URL: z.string().regex(/^rediss?:\/\/[^\s]+$/, 'must be a redis:// or rediss:// URL').optional(),
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
    if (env.PUBLIC_URL !== undefined && !/^https?:\/\/[^/?#]+\/?$/.test(env.PUBLIC_URL)) {
      ctx.addIssue({ code: 'custom', path: ['PUBLIC_URL'], message: 'must be an origin (scheme, host, optional port) without a path' });
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
    if (isDeployed(env.FOYER_ENV) && env.SECRET_KEY === undefined) {
      ctx.addIssue({ code: 'custom', path: ['SECRET_KEY'], message: `is required when FOYER_ENV=${env.FOYER_ENV}` });
    }
    // Decision 0010: the limits are all that slow credential stuffing from many accounts at once.
    if (env.FOYER_ENV === 'prod' && env.RATE_LIMITS === 'off') {
      ctx.addIssue({ code: 'custom', path: ['RATE_LIMITS'], message: 'must not be off when FOYER_ENV=prod' });
    }
    if (env.SESSION_IDLE_DAYS > env.SESSION_ABSOLUTE_DAYS) {
      ctx.addIssue({ code: 'custom', path: ['SESSION_IDLE_DAYS'], message: 'must not exceed SESSION_ABSOLUTE_DAYS' });
    }
  });

const ServerUrlsOverride = z.partialRecord(z.enum(SERVER_KINDS), z.url());

export type DatabaseConfig = { kind: 'sqlite'; filename: string } | { kind: 'postgres'; connectionString: string };

export interface Config {
  env: Environment;
  port: number;
  host: string;
  /** The origin the browser uses, without a trailing slash. */
  publicUrl: string;
  /** Host name of PUBLIC_URL: decides the cookies' domain and Secure flag (spec §3). */
  publicHostname: string;
  database: DatabaseConfig;
  serverUrls: ServerUrls;
  flags: Flags;
  reCaptchaSiteKey?: string;
  reCaptchaSecret?: string;
  googleClientId?: string;
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

function parseDatabaseUrl(value: string, cwd: string): DatabaseConfig {
  if (/^postgres(ql)?:\/\//.test(value)) return { kind: 'postgres', connectionString: value };
  const path = value.replace(/^sqlite:(\/\/)?/, '');
  if (path === ':memory:') return { kind: 'sqlite', filename: path };
  return { kind: 'sqlite', filename: isAbsolute(path) ? path : resolve(cwd, path) };
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
  const database = parseDatabaseUrl(env.DATABASE_URL, cwd);
  return {
    env: env.FOYER_ENV,
    port: env.PORT,
    host: env.HOST ?? (deployed ? '0.0.0.0' : 'localhost'),
    publicUrl,
    publicHostname: new URL(publicUrl).hostname,
    database,
    serverUrls: { ...defaults, ...parseServerUrls(env.SERVER_URLS) },
    flags: { ...FLAG_DEFAULTS, ...parseFlagOverrides(env.FLAGS) },
    ...(env.RECAPTCHA_SITE_KEY === undefined ? {} : { reCaptchaSiteKey: env.RECAPTCHA_SITE_KEY }),
    ...(env.RECAPTCHA_SECRET === undefined ? {} : { reCaptchaSecret: env.RECAPTCHA_SECRET }),
    ...(env.GOOGLE_CLIENT_ID === undefined ? {} : { googleClientId: env.GOOGLE_CLIENT_ID }),
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
    googleEnabled: config.googleClientId !== undefined,
    // Decision 0005: `/home` locally; the app's own site once deployed.
    defaultHome: appUrl ?? APP_ROUTES.home,
  });
}
