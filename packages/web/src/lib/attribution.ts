import { ATTRIBUTION_PARAMS, PLAN_INTENTS, SIGNUP_SOURCES, STORAGE_KEYS, hasControlCharacters, type PlanIntent } from '@foyer/contract/core';
import type { CallBody } from './api';
import { readCookie, readItem } from './storage';

/** The attribution fields of the sign-up and setup bodies (spec §3, §7). */
export type Attribution = Pick<CallBody<'signup'>, 'gaId' | 'utmMedium' | 'utmCampaign' | 'utmSource' | 'utmTerm' | 'gclid'>;
type AttributionParam = (typeof ATTRIBUTION_PARAMS)[number];

// The landing URL's names (utm_medium) to the calls' names (utmMedium).
const FIELD_OF: Record<AttributionParam, keyof Attribution> = {
  utm_medium: 'utmMedium',
  utm_campaign: 'utmCampaign',
  utm_source: 'utmSource',
  utm_term: 'utmTerm',
  gclid: 'gclid',
  gaId: 'gaId',
};

// The contract's limits (calls.ts): a longer value would make the server refuse the whole
// sign-up with invalidRequest, so an oversized tracking value is cut instead of costing the account.
const MAX_ATTRIBUTION_LENGTH = 500;
const MAX_SIGNUP_SOURCE_LENGTH = 100;

// The same reasoning for control characters (a `%0A` in a campaign link): the server refuses
// them in every field, so such a value is left out rather than failing the sign-up.
function clipped(value: string | null | undefined, max: number): string | undefined {
  const trimmed = value?.trim() ?? '';
  if (trimmed === '' || hasControlCharacters(trimmed)) return undefined;
  return trimmed.slice(0, max);
}

/** Marketing attribution from the query; parameters that are absent or empty are left out. */
export function attributionFromQuery(params: URLSearchParams): Attribution {
  const out: Attribution = {};
  for (const name of ATTRIBUTION_PARAMS) {
    const value = clipped(params.get(name), MAX_ATTRIBUTION_LENGTH);
    if (value !== undefined) out[FIELD_OF[name]] = value;
  }
  return out;
}

/** Spec §3: the `plan` parameter, when it names one of the plan intents. */
export function planIntent(params: URLSearchParams): PlanIntent | undefined {
  const plan = params.get('plan');
  return PLAN_INTENTS.find((intent) => intent === plan);
}

/** Spec §3: the query's `signupSource`, else the email-auth value. */
export function signupSource(params: URLSearchParams): string {
  const source = params.get('signupSource')?.trim() ?? '';
  return source === '' || source.length > MAX_SIGNUP_SOURCE_LENGTH || hasControlCharacters(source) ? SIGNUP_SOURCES.email : source;
}

/** Spec §7: the marketing tracker's visitor token, from its `hubspotutk` cookie, when present. */
export function hubspotToken(): string | undefined {
  return clipped(readCookie(STORAGE_KEYS.hubspotutk), MAX_ATTRIBUTION_LENGTH);
}

/** Spec §3, §7: the stored marketing-test flag, sent only when it was stored. */
export function marketingTest(): boolean | undefined {
  const stored = readItem('isMarketingTest');
  return stored === null ? undefined : stored === 'true';
}
