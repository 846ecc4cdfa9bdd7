import { ROUTES } from '@foyer/contract/core';
import { lazy, Suspense } from 'react';
import { PageSpinner } from './components/card-layout';
import { SignIn } from './screens/sign-in/sign-in';

const RouterShell = lazy(() => import('./app').then((m) => ({ default: m.App })));

/**
 * What the page shows, decided by the path it was loaded at. `/sign-in`, the first page most
 * visitors see, renders its screen directly, with no router: its first load may fetch at most
 * 80 KB of gzipped JavaScript, and React alone is most of that, so react-router (and everything
 * that imports it) must stay out of it. Every way off sign-in is a full page load. Every other
 * path loads the router shell (app.tsx) on demand. Other spellings of sign-in (`/sign-in/`) still
 * work, through the router.
 *
 * Nothing this module imports statically may import react-router: first-load.test.ts checks the
 * build.
 */
export function Page({ pathname }: { pathname: string }) {
  if (pathname === ROUTES.signIn) return <SignIn />;
  return (
    <Suspense fallback={<PageSpinner />}>
      <RouterShell />
    </Suspense>
  );
}
