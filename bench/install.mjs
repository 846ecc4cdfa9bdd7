#!/usr/bin/env node
// Installs the harness's own dependencies (bench/package.json: autocannon, Better Auth, Lighthouse,
// chrome-launcher) on first use and whenever bench/package-lock.json changes. The bench is not a
// workspace, so `npm install` at the root never fetches them (decision 0016). The product's
// packages the harness also drives (@node-rs/argon2, better-sqlite3, pg, playwright-core, and for
// the Google provider and the SAML IdP oidc-provider, xml-crypto and @xmldom/xmldom) come from the
// root install, so Foyer and the harness measure the very same builds.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCH = fileURLToPath(new URL('.', import.meta.url));
const STAMP = join(BENCH, 'node_modules', '.foyer-bench-install');
const FROM_ROOT = ['@node-rs/argon2', 'better-sqlite3', 'pg', 'playwright-core', 'oidc-provider', 'xml-crypto', '@xmldom/xmldom'];

for (const name of FROM_ROOT) {
  try {
    import.meta.resolve(name);
  } catch {
    console.error(`bench: ${name} is missing; run \`npm install\` at the repository's root first.`);
    process.exit(1);
  }
}

const wanted = createHash('sha256')
  .update(readFileSync(join(BENCH, 'package.json')))
  .update(readFileSync(join(BENCH, 'package-lock.json')))
  .digest('hex');
if (existsSync(STAMP) && readFileSync(STAMP, 'utf8') === wanted) process.exit(0);

console.error('bench: installing the harness dependencies (npm ci in bench/)…');
// The npm that runs `npm run bench`, under the same Node; `npm` from PATH otherwise.
const npmCli = process.env.npm_execpath;
const [command, prefixArgs] = npmCli?.endsWith('.js') ? [process.execPath, [npmCli]] : ['npm', []];
// npm's output goes to stderr: the harness's stdout is the report.
const result = spawnSync(command, [...prefixArgs, 'ci', '--no-audit', '--no-fund'], { cwd: BENCH, stdio: ['ignore', 2, 2] });
if (result.status !== 0) {
  console.error(`bench: npm ci in bench/ failed${result.error ? `: ${result.error.message}` : ''}`);
  process.exit(1);
}
writeFileSync(STAMP, wanted);
