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
];

/**
 * React Router's exports map always points at its development build (its own Vite plugin is
 * what normally swaps in the production one). The shipped bundle takes the production build:
 * no development warnings in visitors' consoles, and a little less to download.
 */
const reactRouterProduction = join(
  dirname(createRequire(import.meta.url).resolve('react-router/package.json')),
  'dist/production/index.mjs',
);

export default defineConfig(({ command }) => ({
  plugins: [react()],
  resolve: {
    alias:
      command === 'build' ? [...webAliases, { find: /^react-router$/, replacement: reactRouterProduction }] : webAliases,
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
  },
  server: {
    // `npm run dev -w @foyer/web` against a running account service.
    proxy: {
      '/api': 'http://localhost:8080',
      '/static': 'http://localhost:8080',
    },
  },
}));
