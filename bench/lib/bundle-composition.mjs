// What a built JavaScript chunk is made of, by source package, from its source map: for finding
// what to cut when the /sign-in first load is over budget. Build with maps into a scratch folder
// (nothing in the repository changes):
//   (cd packages/web && npx vite build --sourcemap --outDir /tmp/foyer-web-map --emptyOutDir)
//   node bench/lib/bundle-composition.mjs /tmp/foyer-web-map/assets/index-*.js ...
// Bytes are of the minified output; "gzip alone" is each part's text gzipped by itself (parts do
// not add up exactly to the chunk's gzip size, but they rank what to cut).
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { SourceMapConsumer } from 'source-map-js';

function owner(source) {
  const path = source.replace(/^(\.\.\/)+/, '').replace(/^\/?/, '');
  const nm = path.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = path.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const pkg = /packages\/([^/]+)\/src\/([^/]+)(?:\/([^/]+))?/.exec(path);
  if (pkg) return pkg[1] === 'web' ? `web/${pkg[2]}${pkg[3] && pkg[2] !== 'main.tsx' && !pkg[2].includes('.') ? `/${pkg[3]}` : ''}` : `@foyer/${pkg[1]}`;
  return path;
}

for (const file of process.argv.slice(2)) {
  const code = readFileSync(file, 'utf8');
  const map = new SourceMapConsumer(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
  const lines = code.split('\n');
  const bytes = new Map();
  const texts = new Map();
  let mapped = 0;
  // Each mapping owns the generated text up to the next mapping on its line.
  const mappings = [];
  map.eachMapping((m) => mappings.push(m), null, SourceMapConsumer.GENERATED_ORDER);
  for (let i = 0; i < mappings.length; i++) {
    const m = mappings[i];
    const next = mappings[i + 1];
    const lineText = lines[m.generatedLine - 1] ?? '';
    const end = next && next.generatedLine === m.generatedLine ? next.generatedColumn : lineText.length;
    const size = Math.max(0, end - m.generatedColumn);
    const key = m.source ? owner(m.source) : '(unmapped)';
    bytes.set(key, (bytes.get(key) ?? 0) + size);
    if (!texts.has(key)) texts.set(key, []);
    texts.get(key).push(lineText.slice(m.generatedColumn, end));
    mapped += size;
  }
  process.stdout.write(`\n${file}: ${code.length} bytes, gzip ${gzipSync(code, { level: 9 }).length}\n     bytes  share    gzip alone  part\n`);
  for (const [key, size] of [...bytes].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
    const gz = gzipSync(texts.get(key).join(''), { level: 9 }).length;
    process.stdout.write(`${String(size).padStart(9)}  ${((size / code.length) * 100).toFixed(1).padStart(5)} %  ${String(gz).padStart(9)}  ${key}\n`);
  }
  process.stdout.write(
    `${String(code.length - mapped).padStart(9)}  ${(((code.length - mapped) / code.length) * 100).toFixed(1).padStart(5)} %  (between mappings)\n`,
  );
}
