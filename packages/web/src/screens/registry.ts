import type { RouteName } from '@foyer/contract/core';
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

type Screen = LazyExoticComponent<ComponentType>;

const notAvailable: Screen = lazy(() => import('./not-available/not-available').then((m) => ({ default: m.NotAvailable })));

export const HomeScreen: Screen = lazy(() => import('./home/home').then((m) => ({ default: m.Home })));

/**
 * The screen of every auth route except sign-in, which is in the first bundle (spec §2). Each
 * is loaded on demand. A capability that ships replaces its `notAvailable` entry with
 * `lazy(() => import('./<name>/<name>'))` and nothing else changes.
 */
export const LAZY_SCREENS: Record<Exclude<RouteName, 'signIn'>, Screen> = {
  signUp: notAvailable,
  signUpOld: notAvailable,
  forgotPassword: notAvailable,
  deferEmailVerification: notAvailable,
  resetPassword: notAvailable,
  verifyEmail: notAvailable,
  verifyNewEmail: notAvailable,
  setupAccount: notAvailable,
  ssoSignIn: notAvailable,
  ssoLanding: notAvailable,
  ssoTransfer: notAvailable,
  socialAuth: notAvailable,
  socialAuthCallback: notAvailable,
  discourseSso: notAvailable,
  discourseTerms: notAvailable,
};
