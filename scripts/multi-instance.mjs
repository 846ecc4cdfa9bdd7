// The multi-instance deployment, run for real (README "Operations"): HAProxy from Debian's
// packages (installed when missing and this is root) in front of three Foyer instances on one
// PostgreSQL and one Redis. The scenario is TypeScript beside the server's tests, run with the
// workspace's tsx from the sources, so no build is needed and none can be stale.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const entry = fileURLToPath(new URL('../packages/server/test/multi-instance/main.ts', import.meta.url));
const result = spawnSync(process.execPath, ['--conditions=source', '--import', 'tsx', entry], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
