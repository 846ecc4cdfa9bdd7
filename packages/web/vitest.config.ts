import react from '@vitejs/plugin-react';
import { defineProject } from 'vitest/config';
import { webAliases } from './vite.config.ts';

export default defineProject({
  plugins: [react()],
  resolve: { alias: webAliases },
  test: {
    name: 'web',
    root: import.meta.dirname,
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test/setup.ts'],
    // Above the 5 s that findBy and waitFor wait (src/test/setup.ts).
    testTimeout: 15_000,
  },
});
