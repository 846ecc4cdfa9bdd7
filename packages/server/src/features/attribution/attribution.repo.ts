import type { Db } from '../../db/schema.js';

/** Spec §3 attribution and intent, as sign-up and setup send them. */
export interface AttributionInput {
  signupSource?: string | undefined;
  initialIntent?: string | undefined;
  utmMedium?: string | undefined;
  utmCampaign?: string | undefined;
  utmSource?: string | undefined;
  utmTerm?: string | undefined;
  gclid?: string | undefined;
  gaId?: string | undefined;
  hubspotToken?: string | undefined;
  isMarketingTest?: boolean | undefined;
  /** Must already have passed the redirect policy (features/redirects). */
  redirectTo?: string | undefined;
  /** Recorded as given, never followed. */
  lastTouchUrl?: string | undefined;
  marketingTestData?: string | undefined;
}

const text = (value: string | undefined): string | null => (value === undefined || value === '' ? null : value);

/**
 * Stores what is known of where an account came from. Values already stored win: sign-up's
 * attribution is the first touch, and setup only fills what sign-up did not know (an invitee
 * has no sign-up, so setup's values are all there is).
 */
export async function mergeAttribution(db: Db, userId: string, input: AttributionInput, now: number): Promise<void> {
  const values = {
    signup_source: text(input.signupSource),
    initial_intent: text(input.initialIntent),
    utm_medium: text(input.utmMedium),
    utm_campaign: text(input.utmCampaign),
    utm_source: text(input.utmSource),
    utm_term: text(input.utmTerm),
    gclid: text(input.gclid),
    ga_id: text(input.gaId),
    hubspot_token: text(input.hubspotToken),
    is_marketing_test: input.isMarketingTest === undefined ? null : input.isMarketingTest ? 1 : 0,
    redirect_to: text(input.redirectTo),
    last_touch_url: text(input.lastTouchUrl),
    marketing_test_data: text(input.marketingTestData),
  };
  await db
    .insertInto('user_attribution')
    .values({ user_id: userId, ...values, created_at: now, updated_at: now })
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet((eb) => {
        const keep = <K extends keyof typeof values>(column: K) => eb.fn.coalesce(`user_attribution.${column}`, `excluded.${column}`);
        return {
          signup_source: keep('signup_source'),
          initial_intent: keep('initial_intent'),
          utm_medium: keep('utm_medium'),
          utm_campaign: keep('utm_campaign'),
          utm_source: keep('utm_source'),
          utm_term: keep('utm_term'),
          gclid: keep('gclid'),
          ga_id: keep('ga_id'),
          hubspot_token: keep('hubspot_token'),
          is_marketing_test: keep('is_marketing_test'),
          redirect_to: keep('redirect_to'),
          last_touch_url: keep('last_touch_url'),
          marketing_test_data: keep('marketing_test_data'),
          updated_at: now,
        };
      }),
    )
    .execute();
}

export async function findRedirectTo(db: Db, userId: string): Promise<string | null> {
  const row = await db.selectFrom('user_attribution').select('redirect_to').where('user_id', '=', userId).executeTakeFirst();
  return row?.redirect_to ?? null;
}
