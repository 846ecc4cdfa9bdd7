import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * Shared with vitest.config.ts so the tests run the module graph that ships:
 * - the contract is built from its TypeScript source (exact match, so deep imports such as
 *   `@foyer/contract/lang/en.json` keep going through the package's exports map);
 * - the page imports `@foyer/contract/core`, the contract without its zod schemas: the
 *   schemas are built when their modules load and cannot be tree-shaken, and the page never
 *   parses with them (the service does).
 */
export const webAliases = [
  { find: /^@foyer\/contract$/, replacement: here('../contract/src/index.ts') },
  { find: /^@foyer\/contract\/core$/, replacement: here('../contract/src/core.ts') },
  // Decision 0021: the forum's and analytics' values, kept apart from core so that the sign-in
  // page's first load does not carry them.
  { find: /^@foyer\/contract\/community$/, replacement: here('../contract/src/community.ts') },
  // Decision 0026: the error reporter's scrubbing, loaded with the reporter after the first error.
  { find: /^@foyer\/contract\/client-errors$/, replacement: here('../contract/src/client-errors.ts') },
  // Decision 0024: the flag refresher's limits and paths, loaded after the first paint.
  { find: /^@foyer\/contract\/ofrep$/, replacement: here('../contract/src/ofrep.ts') },
  // Decision 0025: the tag manager's and the support widget's values, loaded after the first paint.
  { find: /^@foyer\/contract\/third-party$/, replacement: here('../contract/src/third-party.ts') },
];

/**
 * React Router's exports map always points at its development build (its own Vite plugin is
 * what normally swaps in the production one). The shipped bundle takes the production build:
 * no development warnings in visitors' consoles, and a little less to download.
 */
const reactRouterProduction = join(dirname(createRequire(import.meta.url).resolve('react-router/package.json')), 'dist/production/index.mjs');

/**
 * What `/sign-in` runs (page.tsx renders it without the router): React, the contract's core, and
 * the shared components and libraries the screen imports. Kept in one chunk: left to itself the
 * bundler splits these by which lazy screens share them, and at nine small chunks the overhead
 * alone costs about 2 KB of the page's 80 KB budget (scripts/first-load.mjs). A module missing
 * here still loads, in a chunk of its own; one listed that sign-in does not need costs bytes, which
 * the budget check shows. No zod: the contract's schema modules (calls, fields, runtime-config)
 * stay out.
 */
const SIGN_IN_FIRST_LOAD =
  /node_modules\/(react|react-dom|scheduler)\/|packages\/contract\/src\/(core|environments|errors|flags|i18n|page|paths|redirect|routes|storage|validation|lang\/)|packages\/web\/src\/(page|main|styles|components\/(alert|button|card-layout|icons|logo|spinner|text-field|tooltip|error-text|third-party-scripts)|lib\/(api|error-listener|i18n|page-query|password-hash|redirect|runtime-config|signed-in|storage)|screens\/sign-in\/)/;

export default defineConfig(({ command }) => ({
  plugins: [react()],
  resolve: {
    alias: command === 'build' ? [...webAliases, { find: /^react-router$/, replacement: reactRouterProduction }] : webAliases,
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [{ name: 'first-load', test: SIGN_IN_FIRST_LOAD, priority: 10 }],
        },
      },
    },
  },
  server: {
    // `npm run dev -w @foyer/web` against a running account service.
    proxy: {
      '/api': 'http://localhost:8080',
      '/static': 'http://localhost:8080',
    },
  },
}));
