/** Spec §9: feature flags and their defaults. */
export const FLAG_DEFAULTS = {
  'unit-test': false,
  '{hash}': false,
  personal_to_just_me: true,
  snippet_group_type: true,
  'snippet-move-query': false,
  'discourse-sso': true,
  'te-notifications': false,
  'otel-collector-tenet-logs': false,
  'ai-alpha': false,
  'requests-version': 0,
  'powerful-search-v1': false,
  'stats-update-logging': false,
  'import-snippets-logging': false,
  'freemium-v1': false,
  'snippet-embedding-status': false,
  'ai-playground': false,
  'date-picker-fillin': false,
} as const satisfies Record<string, boolean | number>;

export type FlagName = keyof typeof FLAG_DEFAULTS;
export type Flags = { [K in FlagName]: (typeof FLAG_DEFAULTS)[K] extends boolean ? boolean : number };

/**
 * Reads `FLAG_NAME=value,…` overrides: without a flag service (FLAGS_OFREP_URL) they answer,
 * over the spec's defaults; with one, they answer whenever it does not (decision 0024).
 */
export function parseFlagOverrides(text: string | undefined): Partial<Flags> {
  const out: Record<string, boolean | number> = {};
  if (!text) return out as Partial<Flags>;
  for (const pair of text.split(',')) {
    const [rawName, rawValue] = pair.split('=');
    const name = rawName?.trim();
    if (!name || !(name in FLAG_DEFAULTS) || rawValue === undefined) continue;
    const value = rawValue.trim();
    const fallback = FLAG_DEFAULTS[name as FlagName];
    if (typeof fallback === 'number') {
      const n = Number(value);
      if (Number.isFinite(n)) out[name] = n;
    } else if (value === 'true' || value === 'false') {
      out[name] = value === 'true';
    }
  }
  return out as Partial<Flags>;
}

/**
 * What is wrong with a `FLAGS` text, one line per pair `parseFlagOverrides` would pass over: not
 * `name=value`, a name that is no flag, a value of the wrong kind. Empty when every pair counts.
 */
export function flagOverrideProblems(text: string): string[] {
  const problems: string[] = [];
  for (const pair of text.split(',')) {
    if (pair.trim() === '') continue;
    const [rawName, rawValue, ...rest] = pair.split('=');
    const name = rawName?.trim() ?? '';
    if (name === '' || rawValue === undefined || rest.length > 0) {
      problems.push(`"${pair.trim()}" is not name=value`);
      continue;
    }
    if (!(name in FLAG_DEFAULTS)) {
      problems.push(`${name} is not a flag (${Object.keys(FLAG_DEFAULTS).join(', ')})`);
      continue;
    }
    const value = rawValue.trim();
    if (typeof FLAG_DEFAULTS[name as FlagName] === 'number') {
      if (value === '' || !Number.isFinite(Number(value))) problems.push(`${name} takes a number, not "${value}"`);
    } else if (value !== 'true' && value !== 'false') {
      problems.push(`${name} takes true or false, not "${value}"`);
    }
  }
  return problems;
}

/** Spec §9: constants the screens and the service share. */
export const LIMITS = {
  minPasswordLength: 8,
  /** A password longer than this is refused as input, not truncated (ASVS V6.2.8/V6.2.9). */
  maxPasswordLength: 256,
  accountLockMinutes: 30,
  ssoLandingDelayMs: 1000,
  rememberedEmailClearMs: 50,
  termsIframeHeightPx: 400,
  randomIdLength: 12,
  tagManagerTimeoutMs: 2000,
  httpTimeoutMs: 0,
  spinnerSizePx: 40,
} as const;

export const TOOLTIP_DEFAULTS = { offset: 10, place: 'top', fadeSeconds: 0.3 } as const;
export const SUPPORT_WIDGET_REGIONS = ['us', 'eu', 'ap'] as const;
export const PLAN_INTENTS = ['individual', 'organization'] as const;
export type PlanIntent = (typeof PLAN_INTENTS)[number];
