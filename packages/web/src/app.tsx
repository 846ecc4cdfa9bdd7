import { APP_ROUTES, FORUM_ROUTES, ROUTES, type RouteName } from '@foyer/contract/core';
import { Suspense } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { PageSpinner } from './components/card-layout';
import { useRuntimeConfig } from './lib/runtime-config';
import { HomeScreen, LAZY_SCREENS } from './screens/registry';
import { SignIn } from './screens/sign-in/sign-in';

const LAZY_ROUTE_NAMES = Object.keys(LAZY_SCREENS) as (keyof typeof LAZY_SCREENS)[];

/**
 * Spec §2: the sixteen auth routes and the plain signed-in page. The root and every unknown
 * path go to sign-in (keeping nothing of the old address); the forum routes exist only while
 * the `discourse-sso` flag is on, so with it off they fall through to sign-in too.
 */
export function App() {
  const { flags } = useRuntimeConfig();
  const visible = (name: RouteName) => flags['discourse-sso'] || !FORUM_ROUTES.includes(name);
  const toSignIn = <Navigate to={ROUTES.signIn} replace />;

  return (
    <Suspense fallback={<PageSpinner />}>
      <Routes>
        <Route path="/" element={toSignIn} />
        <Route path={ROUTES.signIn} element={<SignIn />} />
        <Route path={APP_ROUTES.home} element={<HomeScreen />} />
        {LAZY_ROUTE_NAMES.filter(visible).map((name) => {
          const Screen = LAZY_SCREENS[name];
          return <Route key={name} path={ROUTES[name]} element={<Screen />} />;
        })}
        <Route path="*" element={toSignIn} />
      </Routes>
    </Suspense>
  );
}
