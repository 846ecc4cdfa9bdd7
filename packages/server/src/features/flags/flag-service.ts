import { createHash, randomUUID } from 'node:crypto';
import { FLAG_NAMES, type FlagName, type Flags } from '@foyer/contract';
import type { EvaluationContext, EvaluationDetails, FlagValue } from '@openfeature/core';
import { OFREPProvider } from '@openfeature/ofrep-provider';
import { InMemoryProvider, NOOP_PROVIDER, OpenFeature, type Provider } from '@openfeature/server-sdk';
import type { FastifyBaseLogger } from 'fastify';
import type { Config, FlagServiceConfig } from '../../config.js';
import type { Clock } from '../../lib/clock.js';

/** One flag as evaluated: what the OFREP answers carry (decision 0024). */
export interface EvaluatedFlag {
  key: FlagName;
  value: boolean | number;
  /** OpenFeature's reason; `DEFAULT` when the flag service did not answer and the fallback did. */
  reason: string;
  variant?: string;
}

/** Every flag at one moment, and the entity tag of that set (OFREP bulk answers, the page). */
export interface FlagSet {
  flags: Flags;
  evaluated: EvaluatedFlag[];
  etag: string;
}

export interface FlagService {
  /** Every flag, evaluated now or at most REUSE_MS ago. Never throws and never waits past the timeout. */
  current(): Promise<FlagSet>;
  close(): Promise<void>;
}

/**
 * An evaluated set serves every page and OFREP request of the next second: the flag service
 * then gets at most one round of evaluations per second from each instance, however busy the
 * pages are, and a change there still shows on the next page loaded a second later.
 */
export const REUSE_MS = 1000;

/** After a request to the flag service failed or timed out, it is left alone this long. */
export const COOL_DOWN_MS = 5000;

/**
 * The evaluation context: the environment, and nothing about the visitor (decision 0024). The
 * targeting key is constant, so every visitor gets the same values; services such as GO Feature
 * Flag refuse an evaluation without one.
 */
export function evaluationContext(config: Pick<Config, 'env'>): EvaluationContext {
  return { targetingKey: `foyer-${config.env}`, environment: config.env };
}

/** The fallback values as OpenFeature's in-memory configuration: one variant per flag. */
function inMemoryConfiguration(flags: Flags): ConstructorParameters<typeof InMemoryProvider>[0] {
  return Object.fromEntries(
    FLAG_NAMES.map((name) => {
      const variant = String(flags[name]);
      return [name, { variants: { [variant]: flags[name] }, defaultVariant: variant, disabled: false }];
    }),
  );
}

/**
 * The fetch the OFREP provider uses: a deadline on every request (headers and body), and a
 * cool-down after a failure, so a flag service that is down or frozen costs the pages nothing
 * more than one timeout every COOL_DOWN_MS.
 */
function upstreamFetch(service: FlagServiceConfig): (request: Request) => Promise<Response> {
  let downUntil = 0;
  return async (request) => {
    if (Date.now() < downUntil) throw new Error('the flag service failed a moment ago');
    try {
      return await fetch(request, { signal: AbortSignal.timeout(service.timeoutMs) });
    } catch (error) {
      downUntil = Date.now() + COOL_DOWN_MS;
      throw error;
    }
  };
}

function ofrepProvider(service: FlagServiceConfig): Provider {
  return new OFREPProvider({
    baseUrl: service.url,
    fetchImplementation: upstreamFetch(service),
    ...(service.token === undefined ? {} : { headers: [['Authorization', `Bearer ${service.token}`]] }),
  });
}

function etagOf(evaluated: readonly EvaluatedFlag[]): string {
  return `"${createHash('sha256').update(JSON.stringify(evaluated)).digest('base64url').slice(0, 27)}"`;
}

/**
 * Flags through OpenFeature (decision 0024): the OFREP provider when FLAGS_OFREP_URL is set,
 * else an in-memory provider holding the spec's defaults with FLAGS over them. The same values
 * are every evaluation's default, so a flag the service does not know, a value of the wrong
 * type, an error, a refusal (401, 403, 429) or a timeout all answer with them. Each instance
 * binds its provider to a domain of its own in OpenFeature's process-wide registry.
 */
export async function createFlagService(
  config: Pick<Config, 'env' | 'flags' | 'flagService'>,
  clock: Clock,
  log: FastifyBaseLogger,
): Promise<FlagService> {
  const domain = `foyer-flags-${randomUUID()}`;
  const provider = config.flagService === undefined ? new InMemoryProvider(inMemoryConfiguration(config.flags)) : ofrepProvider(config.flagService);
  await OpenFeature.setProviderAndWait(domain, provider);
  const client = OpenFeature.getClient(domain);
  const context = evaluationContext(config);
  const fallback = config.flags;

  let last: { set: FlagSet; at: number } | undefined;
  let inFlight: Promise<FlagSet> | undefined;
  let lastFailures = '';

  const evaluateOne = async (name: FlagName): Promise<[EvaluatedFlag, string | undefined]> => {
    const value = fallback[name];
    const details: EvaluationDetails<FlagValue> =
      typeof value === 'number' ? await client.getNumberDetails(name, value, context) : await client.getBooleanDetails(name, value, context);
    if (details.errorCode !== undefined) return [{ key: name, value, reason: 'DEFAULT' }, details.errorCode];
    return [
      {
        key: name,
        value: details.value as boolean | number,
        reason: details.reason ?? 'UNKNOWN',
        ...(details.variant === undefined ? {} : { variant: details.variant }),
      },
      undefined,
    ];
  };

  const evaluateAll = async (): Promise<FlagSet> => {
    const results = await Promise.all(FLAG_NAMES.map(evaluateOne));
    const evaluated = results.map(([flag]) => flag);
    const failures = Object.fromEntries(results.flatMap(([flag, error]) => (error === undefined ? [] : [[flag.key, error]])));
    // Said once when the failing flags change, not on every round: an outage is one line.
    const failureText = JSON.stringify(failures);
    if (failureText !== lastFailures) {
      if (Object.keys(failures).length > 0) log.warn({ failures }, 'flag service: some flags answered with their fallback values');
      else if (lastFailures !== '') log.info('flag service: every flag answered again');
      lastFailures = failureText;
    }
    const flags = Object.fromEntries(evaluated.map((flag) => [flag.key, flag.value])) as Flags;
    return { flags, evaluated, etag: etagOf(evaluated) };
  };

  return {
    current() {
      const now = clock.now();
      if (last !== undefined && now - last.at < REUSE_MS && now >= last.at) return Promise.resolve(last.set);
      // One round at a time: requests arriving meanwhile share it.
      inFlight ??= evaluateAll()
        .then((set) => {
          last = { set, at: clock.now() };
          return set;
        })
        .finally(() => {
          inFlight = undefined;
        });
      return inFlight;
    },
    async close() {
      // Releases the provider (OpenFeature closes one no domain uses any more).
      await OpenFeature.setProviderAndWait(domain, NOOP_PROVIDER);
    },
  };
}
