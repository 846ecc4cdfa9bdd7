import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

interface Chunk {
  file: string;
  gzipBytes: number;
  packages: string[];
}

interface FirstLoad {
  budgetBytes: number;
  indexHtml: string[];
  files: Chunk[];
  jsGzipBytes: number;
  reactRouterInFirstLoad: string[];
  reactRouterElsewhere: string[];
  modules: Array<{ file: string; source: string; rawBytes: number; gzipShareBytes: number }>;
}

const SCRIPT = join(import.meta.dirname, '../scripts/first-load.mjs');

/** A production build by scripts/first-load.mjs, in a process of its own (not vitest's). */
async function measure(): Promise<FirstLoad> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_ENV' && !name.startsWith('VITEST')));
  const { stdout } = await promisify(execFile)(process.execPath, [SCRIPT, '--json'], { env, maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout) as FirstLoad;
}

/**
 * The sign-in page may fetch at most 80 KB of gzipped JavaScript on its first load (the bench's
 * budget). React alone is most of that, so react-router must stay out: sign-in renders without a
 * router (src/page.tsx), and nothing it imports statically may import react-router, not even the
 * shared components. This checks the real build, so it also catches a dependency or a chunking
 * change that drags react-router in.
 */
describe('the first load of /sign-in (performance budget)', () => {
  it('holds no react-router, and fits the budget', async () => {
    const report = await measure();
    // What index.html makes the browser fetch is what the manifest says the entry needs.
    expect(report.indexHtml.slice().sort()).toEqual(report.files.map((chunk) => chunk.file).sort());
    expect(report.files.some((chunk) => chunk.packages.includes('react-dom'))).toBe(true);

    expect(report.reactRouterInFirstLoad, 'react-router must not be imported on the sign-in path').toEqual([]);
    // It is still in the build, behind the router shell's dynamic import: the check can see it.
    expect(report.reactRouterElsewhere.length).toBeGreaterThan(0);

    expect(report.jsGzipBytes).toBeLessThanOrEqual(report.budgetBytes);

    // `--modules` (decision 0017): each chunk's modules account for the whole chunk, and the
    // sign-in screen and React are among them.
    for (const chunk of report.files.filter((file) => report.modules.some((entry) => entry.file === file.file))) {
      const modules = report.modules.filter((entry) => entry.file === chunk.file);
      const shares = modules.reduce((total, entry) => total + entry.gzipShareBytes, 0);
      expect(Math.abs(shares - chunk.gzipBytes)).toBeLessThanOrEqual(modules.length);
    }
    const sources = report.modules.map((entry) => entry.source);
    expect(sources).toContain('packages/web/src/screens/sign-in/sign-in.tsx');
    expect(sources).toContain('node_modules/react-dom/cjs/react-dom-client.production.js');
  }, 120_000);
});
