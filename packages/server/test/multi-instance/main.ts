import { DEFAULT_TEST_DATABASE_URL } from '../postgres-global-setup.js';
import { TEST_REDIS_URL } from '../redis.js';
import { Cluster, findOrInstallHaproxy } from './cluster.js';
import { problemsOf } from './report.js';
import { runScenario } from './scenario.js';

/**
 * `node scripts/multi-instance.mjs`: HAProxy in front of three Foyer instances on one PostgreSQL
 * and one Redis, driven, with one instance killed mid-way; prints the report and exits 1 when a
 * claim does not hold. TEST_DATABASE_URL and TEST_REDIS_URL say where they are (as for the tests).
 */
async function main(): Promise<number> {
  const haproxy = findOrInstallHaproxy((line) => console.warn(line));
  if (!haproxy.found) {
    console.error(haproxy.reason);
    return 2;
  }
  const adminUrl = process.env.TEST_DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL;
  console.warn(`starting three instances and ${haproxy.path}…`);
  const cluster = await Cluster.start({ haproxy: haproxy.path, adminUrl, redisUrl: TEST_REDIS_URL, instances: 3 });
  try {
    const report = await runScenario(cluster, (line) => console.warn(`· ${line}`));
    console.warn(JSON.stringify(report, null, 2));
    const problems = problemsOf(report);
    for (const problem of problems) console.error(`✗ ${problem}`);
    if (problems.length === 0)
      console.warn('✓ no request lost beyond those in flight on the killed instance; sessions, lockout and rate limits shared; every mail sent once');
    return problems.length === 0 ? 0 : 1;
  } finally {
    await cluster.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
