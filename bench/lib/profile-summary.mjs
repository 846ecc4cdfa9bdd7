// Summarises a V8 .cpuprofile (from `npm run bench -- --profile`): where the main thread's time
// went, by function and by package. Work on other threads (argon2id, SAML, libuv's pool) is not in it.
//   node bench/lib/profile-summary.mjs <file.cpuprofile> [top=25]
import { readFileSync } from 'node:fs';

const [file, topArg = '25'] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/lib/profile-summary.mjs <file.cpuprofile> [top]\n');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));
const top = Number(topArg);
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

// Time per sample: the gap to the next one.
const selfUs = new Map();
const deltas = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  const delta = deltas[i + 1] ?? 0;
  selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + delta);
}
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

function where(frame) {
  const url = frame.url || '';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.includes('/packages/'))
    return url
      .slice(url.indexOf('/packages/') + 1)
      .split('/')
      .slice(0, 2)
      .join('/');
  if (url.startsWith('node:')) return 'node core';
  return url ? url : `(${frame.functionName || 'native'})`;
}

const byFunction = new Map();
const byPackage = new Map();
for (const [id, us] of selfUs) {
  const { callFrame } = byId.get(id);
  const key = `${callFrame.functionName || '(anonymous)'}  ${callFrame.url.split('/').slice(-2).join('/')}:${callFrame.lineNumber + 1}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  const pkg = where(callFrame);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
}

// Inclusive time of our own functions: where a request's time goes in Foyer's code.
const inclusive = new Map();
for (const [id, us] of selfUs) {
  const seen = new Set();
  let node = id;
  while (node !== undefined) {
    const { callFrame } = byId.get(node);
    if (callFrame.url.includes('/packages/server/dist/')) {
      const key = `${callFrame.functionName || '(anonymous)'}  ${callFrame.url.split('/packages/server/dist/')[1]}:${callFrame.lineNumber + 1}`;
      if (!seen.has(key)) {
        seen.add(key);
        inclusive.set(key, (inclusive.get(key) ?? 0) + us);
      }
    }
    node = parent.get(node);
  }
}

const pct = (us) => `${((us / total) * 100).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(7)} ms`;
const print = (title, map) => {
  process.stdout.write(`\n${title}\n`);
  for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${pct(us)}  ${key}\n`);
};
process.stdout.write(`profile: ${(total / 1000).toFixed(0)} ms of main-thread samples\n`);
print('self time by package', byPackage);
print('self time by function', byFunction);
print('inclusive time of Foyer functions', inclusive);
