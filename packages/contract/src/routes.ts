/** Spec §2: the sixteen authentication routes of the web app. */
export const ROUTES = {
  signIn: '/sign-in',
  signUp: '/sign-up',
  signUpOld: '/sign-up-old',
  forgotPassword: '/forgot-password',
  deferEmailVerification: '/defer-email-verification',
  resetPassword: '/reset-password/:token',
  verifyEmail: '/verify-email/:token',
  verifyNewEmail: '/verify-new-email/:token',
  setupAccount: '/setup-account/:token',
  ssoSignIn: '/sso-sign-in',
  ssoLanding: '/sso-landing',
  ssoTransfer: '/ssol/:transferToken',
  socialAuth: '/social-auth',
  socialAuthCallback: '/social-auth-callback',
  discourseSso: '/discourse-sso',
  discourseTerms: '/discourse-terms',
} as const;
export type RouteName = keyof typeof ROUTES;

/** Routes that render only when the `discourse-sso` flag is on (spec §2). */
export const FORUM_ROUTES: readonly RouteName[] = ['discourseSso', 'discourseTerms'];

/**
 * Routes outside the auth area that Foyer serves itself. `/home` is the plain signed-in page,
 * the default home in the local and test environments (decision 0005).
 */
export const APP_ROUTES = {
  home: '/home',
} as const;

/** Fills `:name` segments: `routePath('resetPassword', { token })`. */
export function routePath(name: RouteName, params: Record<string, string> = {}): string {
  return ROUTES[name].replace(/:([A-Za-z]+)/g, (_, key: string) => {
    const value = params[key];
    if (value === undefined) throw new Error(`routePath: missing ${key} for ${name}`);
    return encodeURIComponent(value);
  });
}

/** Spec §2: the recognised query parameters. */
export const QUERY_PARAMS = [
  'from',
  'reason',
  'code',
  'plan',
  'native',
  'chrome',
  'signupSource',
  'marketingTestData',
  'useTransferToken',
  'nonceToken',
  'lastTouchUrl',
  'clientAuthenticationPeriodId',
  'doImmediateRedirect',
  'next',
  'error',
  'transferToken',
  'returnUrl',
  'state',
  'sso',
  'sig',
  // Not in spec §2's list: the address the SSO links of sign-in, forgot-password and Google fill
  // into SSO sign-in (decision 0022).
  'email',
] as const;
export type QueryParam = (typeof QUERY_PARAMS)[number];

/** Marketing attribution carried from the landing URL into sign-up (spec §3). */
export const ATTRIBUTION_PARAMS = ['utm_medium', 'utm_campaign', 'utm_source', 'utm_term', 'gclid', 'gaId'] as const;

/** Values of the `reason` parameter that the sign-in screen explains (spec §8). */
export const SIGN_IN_REASONS = ['sessionExpired'] as const;

/** Marketing-site places (spec §2), as paths under the marketing server URL. */
export const MARKETING_PATHS = {
  getStarted: '/get-started',
  getStartedWithChrome: '/get-started-with-chrome',
  getStartedWithCommunity: '/get-started-with-community',
  privacy: '/privacy',
  terms: '/terms',
} as const;

/** Spec §3: sign-up sources. The email value is the route fragment `auth/sign-up/email` (spec §2). */
export const SIGNUP_SOURCES = {
  email: 'auth/sign-up/email',
  google: 'auth/sign-up/google',
  community: 'auth/sign-up/community',
} as const;
