import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The web builds from the contract's TypeScript source (exact match only, so deep imports such as
// `@foyer/contract/lang/en.json` in tests keep resolving through the package's exports map).
export const contractAlias = [
  { find: /^@foyer\/contract$/, replacement: fileURLToPath(new URL('../contract/src/index.ts', import.meta.url)) },
];

export default defineConfig({
  plugins: [react()],
  resolve: { alias: contractAlias },
  build: {
    outDir: 'dist',
    target: 'es2022',
    sourcemap: false,
  },
  server: {
    proxy: {
      '/api': 'http://localhost:8080',
      '/static': 'http://localhost:8080',
    },
  },
});
