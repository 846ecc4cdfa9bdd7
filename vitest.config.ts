import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Every package resolves the contract from its TypeScript source in tests, so a change to the
// contract is seen at once without a build.
const contractAlias = [
  { find: /^@foyer\/contract$/, replacement: fileURLToPath(new URL('./packages/contract/src/index.ts', import.meta.url)) },
  { find: /^@foyer\/contract\/core$/, replacement: fileURLToPath(new URL('./packages/contract/src/core.ts', import.meta.url)) },
];

// The server's test files share one module graph per worker (isolate: false): each file builds its
// own app, configuration and database, and no server module keeps state a test changes, so
// importing Fastify, Kysely and the features once per worker instead of once per file takes the
// server projects from about 200 s to 90 s (SQLite) here, with the same results in any file order
// (`--sequence.shuffle.files`). The web project keeps a fresh module graph and jsdom per file.
//
// The server's tests wait on the disk, PostgreSQL, Redis, mail and sockets more than they compute
// (a run on two cores kept 0.9 of one core busy with Vitest's default of cores − 1 workers), so
// they run one worker more than there are cores: 258 s → 142 s on two.
export default defineConfig({
  resolve: { alias: contractAlias },
  test: {
    maxWorkers: availableParallelism() + 1,
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
          isolate: false,
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
          isolate: false,
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
