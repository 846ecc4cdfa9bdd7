// What a first visit to a page fetches before it can render: the entry script that index.html
// names and every chunk it imports statically (the ones index.html preloads). The router shell and
// the screens behind it are dynamic imports, fetched later and only by the pages that need them;
// `/sign-in` needs none of them (src/page.tsx).
//
// It builds the web app as `npm run build -w @foyer/web` does, but into a scratch folder with
// Vite's manifest and source maps (dist/ is left alone), follows the manifest from index.html, and
// reads from each chunk's source map which packages it holds. The sign-in page's budget (the
// bench's: at most 80 KB of gzipped JavaScript on the first load, KB = 1000 bytes, gzip level 9)
// leaves no room for react-router, so a first-load chunk that holds it fails the check.
//
//   node packages/web/scripts/first-load.mjs           a table; exit status 1 if the check fails
//   node packages/web/scripts/first-load.mjs --json    the measurements as JSON; the caller judges
//   node packages/web/scripts/first-load.mjs --modules the table, then what each source module
//                                                      adds to the first load (see moduleSizes)
//
// src/first-load.test.ts runs it in the web unit tests.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const BUDGET_BYTES = 80 * 1000;
const FORBIDDEN = 'react-router';
const webDir = fileURLToPath(new URL('..', import.meta.url));

/** The npm package a source-map source belongs to, or `@foyer/<package>` for ours. */
function packageOf(source) {
  const at = source.lastIndexOf('node_modules/');
  if (at >= 0) {
    const [scope = '', name = ''] = source.slice(at + 'node_modules/'.length).split('/');
    return scope.startsWith('@') ? `${scope}/${name}` : scope;
  }
  const own = /packages\/([^/]+)\/(?:src\/|index\.html)/.exec(source);
  return own ? `@foyer/${own[1]}` : source;
}

/** The attributes of every `<tag …>` in the page. */
function tags(html, tag) {
  return [...html.matchAll(new RegExp(`<${tag}\\b([^>]*)>`, 'gi'))].map(([, attributes]) =>
    Object.fromEntries([...attributes.matchAll(/([\w-]+)(?:\s*=\s*"([^"]*)")?/g)].map(([, name, value]) => [name.toLowerCase(), value ?? ''])),
  );
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** A source map's `mappings`, decoded: per generated line, its segments' [column, source?]. */
function decodeMappings(mappings) {
  const lines = [];
  let source = 0;
  for (const line of mappings.split(';')) {
    const segments = [];
    let column = 0;
    for (const segment of line.split(',')) {
      if (segment === '') continue;
      const fields = [];
      let value = 0;
      let shift = 0;
      for (const char of segment) {
        const digit = BASE64.indexOf(char);
        value += (digit & 31) << shift;
        if (digit & 32) {
          shift += 5;
        } else {
          fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      column += fields[0];
      if (fields.length > 1) source += fields[1];
      segments.push([column, fields.length > 1 ? source : undefined]);
    }
    lines.push(segments);
  }
  return lines;
}

/**
 * What each source module puts into a chunk: the minified bytes its source map attributes to it
 * (code with no source, such as the bundler's glue, counts as `(no source)`), and its share of the
 * chunk's gzipped size. Gzip compresses across modules, so a module's share is estimated from its
 * own bytes: each module's text gzipped alone, scaled so that the shares add up to the chunk's
 * gzipped size.
 */
export function moduleSizes(outDir, file) {
  const mapFile = join(outDir, `${file}.map`);
  if (!existsSync(mapFile)) return [];
  const map = JSON.parse(readFileSync(mapFile, 'utf8'));
  const codeLines = readFileSync(join(outDir, file), 'utf8').split('\n');
  const texts = new Map();
  const add = (name, text) => texts.set(name, (texts.get(name) ?? '') + text);
  decodeMappings(map.mappings).forEach((segments, lineIndex) => {
    const line = codeLines[lineIndex] ?? '';
    if (segments.length === 0 || segments[0][0] > 0) add('(no source)', line.slice(0, segments[0]?.[0] ?? line.length));
    segments.forEach(([column, source], index) => {
      const end = segments[index + 1]?.[0] ?? line.length;
      add(source === undefined ? '(no source)' : map.sources[source].replace(/^.*?(?=node_modules\/|packages\/)/, ''), line.slice(column, end));
    });
  });
  const chunkGzip = gzipSync(readFileSync(join(outDir, file)), { level: 9 }).length;
  const alone = [...texts].map(([source, text]) => ({
    source,
    rawBytes: Buffer.byteLength(text),
    aloneGzipBytes: gzipSync(text, { level: 9 }).length,
  }));
  const aloneTotal = alone.reduce((total, entry) => total + entry.aloneGzipBytes, 0);
  return alone
    .map((entry) => ({ ...entry, gzipShareBytes: Math.round((entry.aloneGzipBytes * chunkGzip) / aloneTotal) }))
    .sort((a, b) => b.gzipShareBytes - a.gzipShareBytes);
}

function measureChunk(outDir, file) {
  const code = readFileSync(join(outDir, file));
  // The bundler's own runtime helpers (rolldown's module-interop chunk) come with no source map:
  // no package's code is in them.
  const mapFile = join(outDir, `${file}.map`);
  const sources = existsSync(mapFile) ? JSON.parse(readFileSync(mapFile, 'utf8')).sources : [];
  const packages = [...new Set(sources.map(packageOf))].sort();
  return { file, rawBytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length, packages };
}

export async function measureFirstLoad() {
  // A production build whoever runs this (vitest, for one, sets NODE_ENV=test, which would
  // bundle React's development build). Set before Vite loads.
  process.env.NODE_ENV = 'production';
  const { build } = await import('vite');
  const outDir = mkdtempSync(join(tmpdir(), 'foyer-first-load-'));
  try {
    await build({
      root: webDir,
      configFile: join(webDir, 'vite.config.ts'),
      logLevel: 'silent',
      build: { outDir, emptyOutDir: true, manifest: true, sourcemap: true },
    });
    const manifest = JSON.parse(readFileSync(join(outDir, '.vite/manifest.json'), 'utf8'));
    const entry = manifest['index.html'];
    if (entry?.isEntry !== true) throw new Error('the manifest has no index.html entry');

    // The entry chunk and, transitively, its static imports: what the browser must fetch.
    const firstLoad = [];
    const seen = new Set();
    const visit = (key) => {
      if (seen.has(key)) return;
      seen.add(key);
      const chunk = manifest[key];
      firstLoad.push(chunk.file);
      for (const imported of chunk.imports ?? []) visit(imported);
    };
    visit('index.html');

    const html = readFileSync(join(outDir, 'index.html'), 'utf8');
    const named = [
      ...tags(html, 'script')
        .filter((a) => a.type === 'module' && a.src)
        .map((a) => a.src),
      ...tags(html, 'link')
        .filter((a) => a.rel === 'modulepreload' && a.href)
        .map((a) => a.href),
    ].map((url) => url.replace(/^\//, ''));

    const files = firstLoad.map((file) => measureChunk(outDir, file));
    const modules = firstLoad.flatMap((file) => moduleSizes(outDir, file).map((entry) => ({ file, ...entry })));
    const others = Object.values(manifest)
      .map((chunk) => chunk.file)
      .filter((file) => file.endsWith('.js') && !firstLoad.includes(file))
      .map((file) => measureChunk(outDir, file));
    return {
      budgetBytes: BUDGET_BYTES,
      indexHtml: named,
      files,
      jsGzipBytes: files.reduce((total, file) => total + file.gzipBytes, 0),
      modules,
      css: (entry.css ?? []).map((file) => ({ file, gzipBytes: gzipSync(readFileSync(join(outDir, file)), { level: 9 }).length })),
      reactRouterInFirstLoad: files.filter((file) => file.packages.includes(FORBIDDEN)).map((file) => file.file),
      // Where react-router went instead: shows the check can see it at all.
      reactRouterElsewhere: others.filter((file) => file.packages.includes(FORBIDDEN)).map((file) => file.file),
    };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

/** What is wrong with a measurement, if anything. */
export function problems(report) {
  const found = [];
  if (report.reactRouterInFirstLoad.length > 0) found.push(`${FORBIDDEN} is in the first load: ${report.reactRouterInFirstLoad.join(', ')}`);
  if (report.jsGzipBytes > report.budgetBytes)
    found.push(`the first load is ${report.jsGzipBytes} bytes of gzipped JavaScript, over the ${report.budgetBytes}-byte budget`);
  const manifestFiles = report.files
    .map((file) => file.file)
    .sort()
    .join(' ');
  if (report.indexHtml.slice().sort().join(' ') !== manifestFiles)
    found.push(`index.html names ${report.indexHtml.join(', ')}, the manifest ${manifestFiles}`);
  return found;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const report = await measureFirstLoad();
  if (process.argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    process.stdout.write('First load (index.html: entry script and modulepreloads)\n   raw B  gzip B  file  (packages)\n');
    for (const file of report.files) {
      process.stdout.write(
        `${String(file.rawBytes).padStart(8)}${String(file.gzipBytes).padStart(8)}  ${file.file}  (${file.packages.filter((p) => !p.startsWith('@foyer/')).join(', ') || 'ours only'})\n`,
      );
    }
    process.stdout.write(`JavaScript: ${report.jsGzipBytes} bytes gzipped (budget ${report.budgetBytes})\n`);
    for (const css of report.css) process.stdout.write(`CSS: ${css.file} ${css.gzipBytes} bytes gzipped\n`);
    if (process.argv.includes('--modules')) {
      process.stdout.write('\nBy source module (minified bytes; share of the gzipped first load)\n   raw B  gzip B  module\n');
      for (const entry of report.modules.slice().sort((a, b) => b.gzipShareBytes - a.gzipShareBytes)) {
        process.stdout.write(`${String(entry.rawBytes).padStart(8)}${String(entry.gzipShareBytes).padStart(8)}  ${entry.source}\n`);
      }
    }
    const found = problems(report);
    for (const problem of found) process.stderr.write(`FAIL: ${problem}\n`);
    process.exitCode = found.length > 0 ? 1 : 0;
  }
}
