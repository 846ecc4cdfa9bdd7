import { CALLS, COOKIE_BASE_NAMES, ROUTES, cookieName } from '@foyer/contract';
import { sha256Hex } from '../../src/lib/crypto.js';
import { call, newPerson, type Exchange, type Person } from './client.js';
import type { Cluster, Instance } from './cluster.js';
import { settleMail } from './mail.js';
import { count, type MultiInstanceReport } from './report.js';

const SESSION_COOKIE = cookieName(COOKIE_BASE_NAMES.otter, 'test');
const PASSWORD = sha256Hex('correct horse battery');

/** Runs `work` with `workers` at a time until `until()` says stop. */
async function loop(workers: number, until: () => boolean, work: (worker: number) => Promise<void>): Promise<void> {
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      while (!until()) await work(worker);
    }),
  );
}

/** Spec §2: the verification link's token, read from the mail as a person would. */
function verificationToken(text: string): string | undefined {
  const prefix = ROUTES.verifyEmail.replace(':token', '');
  return new RegExp(`https?://\\S+${prefix}([A-Za-z0-9_-]+)`).exec(text)?.[1];
}

export async function runScenario(cluster: Cluster, log: (line: string) => void = () => undefined): Promise<MultiInstanceReport> {
  const began = performance.now();
  const lb = cluster.balancerPort;
  const sessionsMade: Array<{ person: Person; servedBy: string | undefined }> = [];

  // 1. Whole journeys with every instance up: sign up, follow the mailed link, sign in.
  log('journeys through the balancer');
  const people = Array.from({ length: 9 }, (_, i) => newPerson(`journey${i}`, PASSWORD));
  const completed: Person[] = [];
  await Promise.all(
    people.map(async (person) => {
      const signup = await call(lb, person, 'POST', CALLS.signup.path, {
        body: { deviceId: person.deviceId, email: person.email, hashPassword: PASSWORD, firstName: 'Ada', lastName: 'Lovelace' },
      });
      if (signup.status !== 200) return;
      const token = verificationToken((await cluster.smtp.waitFor(person.email, 10_000)).text);
      if (token === undefined) return;
      const verified = await call(lb, person, 'POST', CALLS.verifyEmail.path, { body: { token, deviceId: person.deviceId } });
      if (verified.status !== 200) return;
      person.otter = (verified.body as { otter: string }).otter;
      sessionsMade.push({ person: { ...person }, servedBy: verified.servedBy });
      const signin = await call(lb, person, 'POST', CALLS.signin.path, {
        body: { email: person.email, hashPassword: PASSWORD, deviceId: person.deviceId },
      });
      if (signin.status !== 200) return;
      person.otter = (signin.body as { otter: string }).otter;
      sessionsMade.push({ person: { ...person }, servedBy: signin.servedBy });
      completed.push(person);
    }),
  );
  const sessionsByInstance = count(sessionsMade.map((made) => made.servedBy));

  // The last person is kept out of the load for the lockout below; the others sign in again
  // during it, a few times each, well inside the per-email sign-in limit.
  const journeysCompleted = completed.length;
  const lockoutTarget = completed.pop();
  const signInsOf = new Map<string, number>();
  const SIGN_INS_PER_PERSON = 10;

  // The instance to kill: one that made sessions, so they are shown to outlive it.
  const victim = [...cluster.instances].sort((a, b) => (sessionsByInstance[b.name] ?? 0) - (sessionsByInstance[a.name] ?? 0))[0] as Instance;
  const survivors = cluster.instances.filter((instance) => instance !== victim);

  // 2. Mixed load through the balancer; the victim gets SIGKILL (a crash, not a drain) mid-way.
  log(`load through the balancer; ${victim.name} is killed mid-way`);
  const exchanges: Exchange[] = [];
  let killAt = Number.POSITIVE_INFINITY;
  let diedAt = Number.POSITIVE_INFINITY;
  const loadBegins = performance.now();
  const loadEnds = loadBegins + 4000;
  setTimeout(() => {
    killAt = performance.now();
    void victim.signal('SIGKILL').then(() => (diedAt = performance.now()));
  }, 1500);
  let turn = 0;
  await loop(
    6,
    () => performance.now() > loadEnds,
    async () => {
      const known = completed[turn++ % Math.max(1, completed.length)];
      const kind = Math.floor(Math.random() * 3);
      if (kind === 0 || known === undefined) {
        const person = newPerson('load', PASSWORD);
        await call(lb, person, 'POST', CALLS.signup.path, {
          body: { deviceId: person.deviceId, email: person.email, hashPassword: PASSWORD, firstName: 'Ada', lastName: 'Lovelace' },
          log: exchanges,
        });
      } else if (kind === 1 && (signInsOf.get(known.email) ?? 0) < SIGN_INS_PER_PERSON) {
        signInsOf.set(known.email, (signInsOf.get(known.email) ?? 0) + 1);
        const person = { ...known, deviceId: newPerson('device', PASSWORD).deviceId };
        const signin = await call(lb, person, 'POST', CALLS.signin.path, {
          body: { email: person.email, hashPassword: PASSWORD, deviceId: person.deviceId },
          log: exchanges,
        });
        if (signin.status === 200)
          sessionsMade.push({ person: { ...person, otter: (signin.body as { otter: string }).otter }, servedBy: signin.servedBy });
      } else {
        await call(lb, known, 'GET', CALLS.session.path, { sessionCookie: SESSION_COOKIE, log: exchanges });
      }
    },
  );
  await victim.exited;
  const failed = exchanges.filter((exchange) => exchange.status !== 200);
  // In flight on the killed one: sent to it before it was gone. Until the kernel has torn the
  // process down, its listening socket still completes handshakes, so a request sent just after
  // SIGKILL can land in its backlog and be reset: sent, so never resent (it could be a POST
  // carried out). Once it is gone, connections are refused and HAProxy sends them elsewhere.
  const inFlight = (exchange: Exchange) => exchange.servedBy === victim.name && exchange.startedAt <= diedAt && exchange.endedAt >= killAt;

  // 3. Sessions: each one, wherever it was made, on every surviving instance.
  log('sessions on every surviving instance');
  const invalid: string[] = [];
  for (const { person, servedBy } of sessionsMade) {
    for (const instance of survivors) {
      const answer = await call(instance.port, person, 'GET', CALLS.session.path, { sessionCookie: SESSION_COOKIE });
      if (answer.status !== 200) invalid.push(`${person.email} (made on ${servedBy ?? '?'}) on ${instance.name}: ${answer.status}`);
    }
  }

  // 4. Lockout: wrong passwords through the balancer, spread over the instances, lock the email for all.
  log('lockout across instances');
  const target = lockoutTarget ?? newPerson('lockout', PASSWORD);
  const wrong = { email: target.email, hashPassword: sha256Hex('a wrong password'), deviceId: target.deviceId };
  const lockServedBy: Array<string | undefined> = [];
  let failuresBeforeLock = 0;
  for (let attempt = 0; attempt < 50; attempt++) {
    const answer = await call(lb, target, 'POST', CALLS.signin.path, { body: wrong });
    lockServedBy.push(answer.servedBy);
    if (answer.status !== 401) break;
    failuresBeforeLock++;
  }
  const lockRefusedOn: Record<string, number> = {};
  for (const instance of survivors) {
    const right = await call(instance.port, target, 'POST', CALLS.signin.path, { body: { ...wrong, hashPassword: PASSWORD } });
    lockRefusedOn[instance.name] = right.status;
  }

  // 5. Rate limit: forgot-password for one email through the balancer until refused, then each instance refuses too.
  log('rate limit across instances');
  const asker = newPerson('limit', PASSWORD);
  const limitServedBy: Array<string | undefined> = [];
  let allowed = 0;
  for (let attempt = 0; attempt < 50; attempt++) {
    const answer = await call(lb, asker, 'POST', CALLS.forgotPassword.path, { body: { email: asker.email } });
    if (answer.status !== 200) break;
    limitServedBy.push(answer.servedBy);
    allowed++;
  }
  const limitRefusedOn: Record<string, number> = {};
  for (const instance of survivors) {
    limitRefusedOn[instance.name] = (await call(instance.port, asker, 'POST', CALLS.forgotPassword.path, { body: { email: asker.email } })).status;
  }

  // 6. Mail: every outbox row delivered, each once.
  log('mail: every queued message delivered once');
  const mail = await settleMail(cluster);

  return {
    instances: cluster.instances.map((instance) => instance.name),
    killed: victim.name,
    killedBy: victim.ending,
    journeys: { people: people.length, completed: journeysCompleted, sessionsByInstance },
    load: {
      requests: exchanges.length,
      byInstance: count(exchanges.map((exchange) => exchange.servedBy)),
      killedAtMs: Math.round(killAt - loadBegins),
      dyingMs: Math.round(diedAt - killAt),
      failed: failed.length,
      failedInFlightOnKilled: failed.filter(inFlight).length,
      // Times relative to the kill, for reading: negative before it.
      lost: failed
        .filter((exchange) => !inFlight(exchange))
        .map((exchange) => ({ ...exchange, startedAt: exchange.startedAt - killAt, endedAt: exchange.endedAt - killAt })),
      sentAfterDeath: exchanges.filter((exchange) => exchange.startedAt > diedAt).length,
    },
    sessions: { checked: sessionsMade.length, madeOnKilled: sessionsMade.filter((made) => made.servedBy === victim.name).length, invalid },
    lockout: { failuresBeforeLock, servedBy: [...new Set(lockServedBy.map(String))].sort(), refusedOn: lockRefusedOn },
    rateLimit: { allowed, servedBy: [...new Set(limitServedBy.map(String))].sort(), refusedOn: limitRefusedOn },
    mail,
    durationMs: Math.round(performance.now() - began),
  };
}
