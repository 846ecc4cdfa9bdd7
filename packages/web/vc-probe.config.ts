import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
export default defineConfig({
  plugins: [react()],
  resolve: { alias: [{ find: /^@foyer\/contract$/, replacement: fileURLToPath(new URL('../contract/src/index.ts', import.meta.url)) }] },
  build: { outDir: '/tmp/probe-dist', target: 'es2022', rolldownOptions: { treeshake: { manualPureFunctions: ['z'] } } },
});
