// Browser tests drive Debian's Chromium (never a downloaded browser build). This installs it
// when it is missing and the machine allows (root with apt-get); otherwise it says what to do.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean);
const found = candidates.find((path) => existsSync(path));
if (found) {
  console.warn(`Chromium: ${found}`);
  process.exit(0);
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const hasApt = existsSync('/usr/bin/apt-get');
if (isRoot && hasApt) {
  console.warn("Chromium is missing: installing Debian's chromium package…");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
  if (existsSync('/usr/bin/chromium')) process.exit(0);
}

console.error(
  'Chromium was not found and could not be installed here. Install it (Debian: `sudo apt-get install chromium`) ' +
    'or set CHROMIUM_PATH to a Chromium binary, then run the tests again.',
);
process.exit(1);
