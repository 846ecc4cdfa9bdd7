import type { RouteName } from '@foyer/contract/core';
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

type Screen = LazyExoticComponent<ComponentType>;

export const HomeScreen: Screen = lazy(() => import('./home/home').then((m) => ({ default: m.Home })));
// Decision 0021: the device hand-off screen, at a path of Foyer's choosing (DEVICE_HAND_OFF_PATH).
export const DeviceHandOffScreen: Screen = lazy(() => import('./device-hand-off/device-hand-off').then((m) => ({ default: m.DeviceHandOff })));

// Sign-in's module is in the first bundle anyway (page.tsx renders it on /sign-in without the
// router), so inside the router shell this costs no fetch: the root and unknown paths land here.
const signIn: Screen = lazy(() => import('./sign-in/sign-in').then((m) => ({ default: m.SignIn })));
const signUp: Screen = lazy(() => import('./sign-up/sign-up').then((m) => ({ default: m.SignUp })));
const signUpOld: Screen = lazy(() => import('./sign-up/sign-up').then((m) => ({ default: m.SignUpOld })));
const forgotPassword: Screen = lazy(() => import('./forgot-password/forgot-password').then((m) => ({ default: m.ForgotPassword })));
const resetPassword: Screen = lazy(() => import('./reset-password/reset-password').then((m) => ({ default: m.ResetPassword })));
// Spec §2: both emailed links show the 'Complete Account Setup' form.
const setupAccount: Screen = lazy(() => import('./setup-account/setup-account').then((m) => ({ default: m.SetupAccount })));
// Decision 0019: Google's two screens load on demand, so the sign-in page's first load stays light.
const socialAuth: Screen = lazy(() => import('./social-auth/social-auth').then((m) => ({ default: m.SocialAuth })));
const socialAuthCallback: Screen = lazy(() => import('./social-auth/social-auth-callback').then((m) => ({ default: m.SocialAuthCallback })));
// Decision 0021: the forum's two screens (and the analytics they record with), on demand; the
// router shell mounts them only while the `discourse-sso` flag is on.
const discourseSso: Screen = lazy(() => import('./forum/discourse-sso').then((m) => ({ default: m.DiscourseSso })));
const discourseTerms: Screen = lazy(() => import('./forum/discourse-terms').then((m) => ({ default: m.DiscourseTerms })));
// Decision 0022: company SSO's three screens, on demand like Google's.
const ssoSignIn: Screen = lazy(() => import('./sso/sso-sign-in').then((m) => ({ default: m.SsoSignIn })));
const ssoLanding: Screen = lazy(() => import('./sso/sso-landing').then((m) => ({ default: m.SsoLanding })));
const ssoTransfer: Screen = lazy(() => import('./sso/sso-transfer').then((m) => ({ default: m.SsoTransfer })));
// Decision 0023: the new-email link and deferred verification.
const verifyNewEmail: Screen = lazy(() => import('./verify-new-email/verify-new-email').then((m) => ({ default: m.VerifyNewEmail })));
const deferEmailVerification: Screen = lazy(() =>
  import('./defer-email-verification/defer-email-verification').then((m) => ({ default: m.DeferEmailVerification })),
);

/**
 * The route table: the screen of every auth route (spec §2), paths from the contract's ROUTES.
 * The router shell (app.tsx) mounts each at its path, loaded on demand.
 */
export const SCREENS: Record<RouteName, Screen> = {
  signIn,
  signUp,
  signUpOld,
  forgotPassword,
  deferEmailVerification,
  resetPassword,
  verifyEmail: setupAccount,
  verifyNewEmail,
  setupAccount,
  ssoSignIn,
  ssoLanding,
  ssoTransfer,
  socialAuth,
  socialAuthCallback,
  discourseSso,
  discourseTerms,
};
