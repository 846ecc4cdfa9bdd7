import * as z from 'zod/mini';
import { ENVIRONMENTS, SERVER_KINDS } from './environments.js';
import { FLAG_DEFAULTS, SUPPORT_WIDGET_REGIONS, type FlagName } from './flags.js';

/**
 * The configuration the browser gets, and nothing else (an explicit allow-list). The server
 * writes it into index.html as a JSON script element (page.ts), so the first paint needs no
 * second round trip (decision 0006).
 */
const flagShape = Object.fromEntries(
  Object.entries(FLAG_DEFAULTS).map(([name, value]) => [name, typeof value === 'number' ? z.number() : z.boolean()]),
) as Record<FlagName, z.ZodMiniBoolean | z.ZodMiniNumber>;

export const RuntimeConfig = z.object({
  env: z.enum(ENVIRONMENTS),
  serverUrls: z.partialRecord(z.enum(SERVER_KINDS), z.string()),
  flags: z.object(flagShape),
  /** The invisible bot check's site key; absent means no bot check (spec §5). */
  reCaptchaSiteKey: z.optional(z.string()),
  /** Google sign-in is offered only when a client is configured. */
  googleEnabled: z.boolean(),
  /** Where a signed-in person goes when no `from` is given. */
  defaultHome: z.string().check(z.minLength(1)),
  /** The community terms page `/discourse-terms` shows in its frame (decision 0021). */
  communityTermsUrl: z.optional(z.string()),
  /** The Segment-compatible batch endpoint (ANALYTICS_URL); absent means analytics are off. */
  analyticsUrl: z.optional(z.string()),
  /** COOKIE_DOMAIN: the parent domain of the cookies the page itself writes (spec §3). */
  cookieDomain: z.optional(z.string()),
  /** GTM_ID: the tag manager container the page loads after its first paint (decision 0025). */
  tagManagerId: z.optional(z.string()),
  /**
   * HTTP_TIMEOUT_MS: how long a call may take before the page gives up with spec §8's 'timeout of
   * N ms exceeded'. Absent means spec §9's default, 0: no timeout.
   */
  httpTimeoutMs: z.optional(z.int().check(z.positive())),
  /** The support widget's workspace and region (decision 0025); absent means no widget. */
  supportWidget: z.optional(z.object({ appId: z.string(), region: z.enum(SUPPORT_WIDGET_REGIONS) })),
});
export type RuntimeConfig = z.infer<typeof RuntimeConfig>;

/** The dictionary the server writes into the page beside the configuration (page.ts). */
export const InlineDictionary = z.object({ locale: z.string(), messages: z.record(z.string(), z.string()) });
export type InlineDictionary = z.infer<typeof InlineDictionary>;
