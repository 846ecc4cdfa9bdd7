import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TEST_DB, dbUnavailable } from '../test/helpers.js';
import { Cluster, findOrInstallHaproxy } from '../test/multi-instance/cluster.js';
import { problemsOf, type MultiInstanceReport } from '../test/multi-instance/report.js';
import { runScenario } from '../test/multi-instance/scenario.js';
import { TEST_REDIS_URL, redisAvailable } from '../test/redis.js';

const postgres = TEST_DB === 'postgres' && !dbUnavailable;
const redis = postgres && (await redisAvailable());

/** CI (REQUIRE_POSTGRES=1) needs HAProxy too: a deployment test that skips there proves nothing. */
function haproxyPath(): string | undefined {
  if (!redis) return undefined;
  const lookup = findOrInstallHaproxy((line) => console.warn(line));
  if (lookup.found) return lookup.path;
  if (process.env.REQUIRE_POSTGRES === '1') throw new Error(`${lookup.reason} (REQUIRE_POSTGRES=1)`);
  console.warn(`${lookup.reason} — the multi-instance deployment test is skipped`);
  return undefined;
}
const haproxy = haproxyPath();

/**
 * ARCHITECTURE.md "Growing past one machine", run for real (README "Operations"; the same scenario
 * as `node scripts/multi-instance.mjs`): HAProxy from Debian's packages in front of three server
 * processes on one PostgreSQL database and one Redis, all mailing one SMTP server; one instance
 * is killed with SIGKILL while people sign up, sign in and check their sessions through it.
 */
describe.skipIf(haproxy === undefined)('three instances behind HAProxy, one killed mid-way (server-postgres project only)', () => {
  let cluster: Cluster | undefined;
  let report: MultiInstanceReport;

  beforeAll(async () => {
    cluster = await Cluster.start({ haproxy: haproxy ?? '', adminUrl: inject('postgresUrl'), redisUrl: TEST_REDIS_URL, instances: 3 });
    try {
      report = await runScenario(cluster);
    } catch (error) {
      throw new Error(`the scenario failed:\n${cluster.output}`, { cause: error });
    }
  }, 120_000);

  afterAll(async () => cluster?.stop(), 30_000);

  it('loses no request beyond those in flight on the killed instance', () => {
    expect(report.load.lost).toEqual([]);
    expect(report.load.failed).toBe(report.load.failedInFlightOnKilled);
    expect(report.load.sentAfterDeath).toBeGreaterThan(0);
    expect(Object.keys(report.load.byInstance).sort()).toEqual(report.instances);
  });

  it('keeps every session valid on every surviving instance, those made on the killed one too', () => {
    expect(report.journeys.completed).toBe(report.journeys.people);
    expect(report.sessions.madeOnKilled).toBeGreaterThan(0);
    expect(report.sessions.invalid).toEqual([]);
  });

  it('shares the lockout and the rate limits between instances', () => {
    expect(report.lockout.servedBy.length).toBeGreaterThan(1);
    expect(Object.values(report.lockout.refusedOn)).toEqual([423, 423]);
    expect(report.rateLimit.servedBy.length).toBeGreaterThan(1);
    expect(Object.values(report.rateLimit.refusedOn)).toEqual([429, 429]);
  });

  it('sends every queued mail once', () => {
    expect(report.mail.queued).toBeGreaterThan(report.journeys.people);
    expect(report.mail.missing).toEqual([]);
    // A copy is possible only of mail the killed instance was sending at its death (decision 0009).
    expect(report.mail.duplicates.filter((id) => !report.mail.heldByKilled.includes(id))).toEqual([]);
  });

  it('finds nothing wrong in the report as a whole', () => {
    expect(problemsOf(report), cluster?.output).toEqual([]);
  });
});
