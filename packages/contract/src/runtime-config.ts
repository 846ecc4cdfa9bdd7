import { z } from 'zod';
import { ENVIRONMENTS, SERVER_KINDS } from './environments.js';
import { FLAG_DEFAULTS, type FlagName } from './flags.js';

/**
 * The configuration the browser gets, and nothing else (an explicit allow-list). The server
 * writes it into index.html as a JSON script element, so the first paint needs no second
 * round trip (decision 0006).
 */
export const RUNTIME_CONFIG_ELEMENT_ID = 'foyer-config';

const flagShape = Object.fromEntries(
  Object.entries(FLAG_DEFAULTS).map(([name, value]) => [name, typeof value === 'number' ? z.number() : z.boolean()]),
) as Record<FlagName, z.ZodBoolean | z.ZodNumber>;

export const RuntimeConfig = z.object({
  env: z.enum(ENVIRONMENTS),
  serverUrls: z.partialRecord(z.enum(SERVER_KINDS), z.string()),
  flags: z.object(flagShape),
  /** The invisible bot check's site key; absent means no bot check (spec §5). */
  reCaptchaSiteKey: z.string().optional(),
  /** Google sign-in is offered only when a client is configured. */
  googleEnabled: z.boolean(),
  /** Where a signed-in person goes when no `from` is given. */
  defaultHome: z.string(),
});
export type RuntimeConfig = z.infer<typeof RuntimeConfig>;

/**
 * The server also writes the dictionary of the visitor's best language (from Accept-Language,
 * English when none is shipped) into the page, so the first paint is already translated. The
 * web treats it as the already-fetched answer for that locale (spec §7 loading order holds).
 */
export const DICTIONARY_ELEMENT_ID = 'foyer-dictionary';
export const InlineDictionary = z.object({ locale: z.string(), messages: z.record(z.string(), z.string()) });
export type InlineDictionary = z.infer<typeof InlineDictionary>;
