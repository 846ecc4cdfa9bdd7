// Writes brotli and gzip copies beside every text asset of the build, at the highest levels, once:
// the service sends them as they are (`preCompressed`), so no request pays for compression and the
// first load of /sign-in is a quarter of its size on the wire.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const dist = new URL('../dist/', import.meta.url).pathname;
const TEXT = /\.(js|css|svg|json|txt)$/;

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)]));
}

let count = 0;
for (const file of walk(dist).filter((path) => TEXT.test(path))) {
  const body = readFileSync(file);
  writeFileSync(`${file}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
  count++;
}
console.warn(`compressed ${count} files in ${dist}`);
