import type { Exchange } from './client.js';

/** What the multi-instance scenario saw (scenario.ts). */
export interface MultiInstanceReport {
  instances: string[];
  killed: string;
  /** How the killed instance ended: SIGKILL, unless it had died of something else first. */
  killedBy: string;
  /** Sign-up, verification link, sign-in of people while every instance runs. */
  journeys: { people: number; completed: number; sessionsByInstance: Record<string, number> };
  /** Sign-ups, sign-ins and session checks through the balancer while one instance is killed. */
  load: {
    requests: number;
    byInstance: Record<string, number>;
    /** Milliseconds into the load when SIGKILL was sent, and from then until the process was gone. */
    killedAtMs: number;
    dyingMs: number;
    failed: number;
    failedInFlightOnKilled: number;
    lost: Exchange[];
    /** Requests sent once the killed process was gone: all must succeed. */
    sentAfterDeath: number;
  };
  /** Every session made (before and during the kill) checked on each surviving instance directly. */
  sessions: { checked: number; madeOnKilled: number; invalid: string[] };
  lockout: { failuresBeforeLock: number; servedBy: string[]; refusedOn: Record<string, number> };
  rateLimit: { allowed: number; servedBy: string[]; refusedOn: Record<string, number> };
  /** Outbox rows against messages at the SMTP server, by Message-ID (the outbox id). */
  mail: { queued: number; delivered: number; missing: string[]; duplicates: string[]; heldByKilled: string[] };
  durationMs: number;
}

/** How many times each value occurs. */
export const count = (values: ReadonlyArray<string | undefined>): Record<string, number> =>
  values.reduce<Record<string, number>>((counts, value) => ({ ...counts, [value ?? 'none']: (counts[value ?? 'none'] ?? 0) + 1 }), {});

/** Every way the report falls short of the claims; empty when the deployment held. */
export function problemsOf(report: MultiInstanceReport): string[] {
  const problems: string[] = [];
  const expect = (holds: boolean, problem: string) => {
    if (!holds) problems.push(problem);
  };
  expect(report.killedBy === 'SIGKILL', `${report.killed} ended by ${report.killedBy} before it was killed`);
  expect(report.journeys.completed === report.journeys.people, `only ${report.journeys.completed} of ${report.journeys.people} journeys completed`);
  expect(
    Object.keys(report.journeys.sessionsByInstance).length === report.instances.length,
    `not every instance served: ${JSON.stringify(report.journeys.sessionsByInstance)}`,
  );
  expect(report.load.lost.length === 0, `requests lost beyond those in flight on ${report.killed}: ${JSON.stringify(report.load.lost)}`);
  expect(report.load.sentAfterDeath > 0, 'no request was sent once the killed instance was gone');
  expect(report.sessions.madeOnKilled > 0, `no session was made on ${report.killed} before it was killed`);
  expect(report.sessions.invalid.length === 0, `sessions not valid everywhere: ${report.sessions.invalid.join('; ')}`);
  expect(
    report.lockout.failuresBeforeLock > 0 && report.lockout.servedBy.length > 1,
    `lockout not spread over instances: ${JSON.stringify(report.lockout)}`,
  );
  expect(
    Object.values(report.lockout.refusedOn).every((status) => status === 423),
    `the lock does not hold everywhere: ${JSON.stringify(report.lockout.refusedOn)}`,
  );
  expect(
    report.rateLimit.allowed > 0 && report.rateLimit.servedBy.length > 1,
    `rate limit not spread over instances: ${JSON.stringify(report.rateLimit)}`,
  );
  expect(
    Object.values(report.rateLimit.refusedOn).every((status) => status === 429),
    `the rate limit does not hold everywhere: ${JSON.stringify(report.rateLimit.refusedOn)}`,
  );
  expect(report.mail.missing.length === 0, `mail never delivered: ${report.mail.missing.join(', ')}`);
  const unexplained = report.mail.duplicates.filter((id) => !report.mail.heldByKilled.includes(id));
  expect(unexplained.length === 0, `mail delivered more than once: ${unexplained.join(', ')}`);
  return problems;
}
