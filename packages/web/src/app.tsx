import { DEVICE_HAND_OFF_PATH } from '@foyer/contract/community';
import { APP_ROUTES, FORUM_ROUTES, ROUTES, type RouteName } from '@foyer/contract/core';
import { Suspense } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { PageSpinner } from './components/card-layout';
import { useLiveFlags } from './lib/flags/live-flags';
import { DeviceHandOffScreen, HomeScreen, SCREENS } from './screens/registry';

const ROUTE_NAMES = Object.keys(SCREENS) as RouteName[];

/**
 * The router shell: every page but `/sign-in` itself (see page.tsx), loaded on demand so that
 * react-router stays out of the sign-in page's first load. Spec §2: the sixteen auth routes and
 * the plain signed-in page. The root and every unknown path go to sign-in (keeping nothing of
 * the old address; the server already redirects the root); the forum routes exist only while the
 * `discourse-sso` flag is on, so with it off they fall through to sign-in too. The flags are kept
 * fresh while the page is open (decision 0024).
 */
export function App() {
  const flags = useLiveFlags();
  const visible = (name: RouteName) => flags['discourse-sso'] || !FORUM_ROUTES.includes(name);
  const toSignIn = <Navigate to={ROUTES.signIn} replace />;

  return (
    <BrowserRouter>
      <Suspense fallback={<PageSpinner />}>
        <Routes>
          <Route path="/" element={toSignIn} />
          <Route path={APP_ROUTES.home} element={<HomeScreen />} />
          <Route path={DEVICE_HAND_OFF_PATH} element={<DeviceHandOffScreen />} />
          {ROUTE_NAMES.filter(visible).map((name) => {
            const Screen = SCREENS[name];
            return <Route key={name} path={ROUTES[name]} element={<Screen />} />;
          })}
          <Route path="*" element={toSignIn} />
        </Routes>
      </Suspense>
    </BrowserRouter>
  );
}
