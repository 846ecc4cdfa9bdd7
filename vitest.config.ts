import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Every package resolves the contract from its TypeScript source in tests, so a change to the
// contract is seen at once without a build.
const contractAlias = [
  { find: /^@foyer\/contract$/, replacement: fileURLToPath(new URL('./packages/contract/src/index.ts', import.meta.url)) },
  { find: /^@foyer\/contract\/core$/, replacement: fileURLToPath(new URL('./packages/contract/src/core.ts', import.meta.url)) },
];

export default defineConfig({
  resolve: { alias: contractAlias },
  test: {
    projects: [
      {
        resolve: { alias: contractAlias },
        test: { name: 'contract', include: ['packages/contract/src/**/*.test.ts'], environment: 'node' },
      },
      {
        resolve: { alias: contractAlias },
        test: {
          name: 'server-sqlite',
          include: ['packages/server/src/**/*.test.ts'],
          environment: 'node',
          env: { FOYER_TEST_DB: 'sqlite' },
          setupFiles: ['packages/server/test/setup.ts'],
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
      {
        resolve: { alias: contractAlias },
        test: {
          name: 'server-postgres',
          include: ['packages/server/src/**/*.test.ts'],
          environment: 'node',
          env: { FOYER_TEST_DB: 'postgres' },
          setupFiles: ['packages/server/test/setup.ts'],
          globalSetup: ['packages/server/test/postgres-global-setup.ts'],
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
      './packages/web/vitest.config.ts',
    ],
  },
});
