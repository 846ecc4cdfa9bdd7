import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DISCOURSE_SSO_URL, FORUM_ENV, TERMS_AGREED_URL, forumRequest, postWithToken } from '../../test/community.js';
import { exchange, googleRound, signInWithGoogle, useGoogleTestApp } from '../../test/google.js';
import { HOUR, TEST_DB, createTestUser, dbUnavailable, getSession, postSignIn, signIn, uniqueEmail, useTestApp } from '../../test/helpers.js';
import { readAuthnRequest, signedResponse } from '../../test/saml-idp.js';
import { landing, postAcs, startSso, startedSaml } from '../../test/sso.js';
import { statementNameOf } from './prepared.js';

/** One statement as the database received it: its text and, on PostgreSQL, its prepared name. */
interface Sent {
  text: string;
  name?: string;
}

/**
 * Records every statement the process sends to the database, at the driver: on SQLite each run of
 * a better-sqlite3 statement (BEGIN and COMMIT included), on PostgreSQL each query of a pg client.
 */
function recordStatements(): Sent[] {
  const sent: Sent[] = [];
  if (TEST_DB === 'sqlite') {
    const probe = new SQLite(':memory:');
    type Run = (this: { source: string }, ...args: unknown[]) => unknown;
    const prototype = Object.getPrototypeOf(probe.prepare('select 1')) as Record<'run' | 'all' | 'get', Run>;
    probe.close();
    for (const method of ['run', 'all', 'get'] as const) {
      const original = prototype[method];
      vi.spyOn(prototype, method).mockImplementation(function (this: { source: string }, ...args: unknown[]) {
        sent.push({ text: this.source });
        return original.apply(this, args);
      });
    }
  } else {
    const original = pg.Client.prototype.query as (...args: unknown[]) => unknown;
    const recording = function (this: pg.Client, ...args: unknown[]): unknown {
      const [first] = args;
      if (typeof first === 'string') sent.push({ text: first });
      else if (typeof first === 'object' && first !== null && 'text' in first) {
        const { text, name } = first as { text: string; name?: string };
        sent.push({ text, ...(name === undefined ? {} : { name }) });
      }
      return original.apply(this, args);
    };
    // pg's overloads cannot all be spelled by one function: the recorder passes every call through.
    vi.spyOn(pg.Client.prototype, 'query').mockImplementation(recording as never);
  }
  return sent;
}

const isBegin = (s: Sent) => /^\s*begin\b/i.test(s.text);
const isCommit = (s: Sent) => /^\s*commit\b/i.test(s.text);
const isWrite = (s: Sent) => /^\s*(insert|update|delete)\b/i.test(s.text);
const readsUsersAlone = (s: Sent) => /^\s*select\b/i.test(s.text) && /\busers\b/i.test(s.text);
const readsDomainsAlone = (s: Sent) => /^\s*select\b/i.test(s.text) && /\borganization_domains\b/i.test(s.text);
/** The session check's read: by primary key, many ids in one parameter (sessions.repo.ts). */
const readsSessionsById = (s: Sent) =>
  /^\s*select\b/i.test(s.text) && /"sessions"\."id" (= any\(\$1\)|in \(select value from json_each\(\?\)\))/.test(s.text);
const isReservation = (s: Sent) => /^\s*insert into "login_failures"/i.test(s.text);
/** Statements Kysely built and compiled for this call, rather than once (`preparedStatement`); BEGIN and COMMIT aside. */
const builtPerCall = (sent: Sent[]) => sent.filter((s) => !isBegin(s) && !isCommit(s) && statementNameOf(s.text) === undefined).map((s) => s.text);

/** SQLite: the statements of the call's one transaction (checked to be the only one), as "insert into \"table\"". */
function writesOfOneTransaction(sent: Sent[]): Array<string | undefined> {
  expect(sent.filter(isBegin)).toHaveLength(1);
  expect(sent.filter(isCommit)).toHaveLength(1);
  const inside = sent.slice(sent.findIndex(isBegin) + 1, sent.findIndex(isCommit));
  return inside.map((s) => /^\s*(\w+ \w+ "\w+"|\w+ "\w+")/.exec(s.text)?.[1]);
}

describe.skipIf(dbUnavailable)('statements per call on the hot paths (decision 0029)', () => {
  const t = useTestApp();
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('a sign-in counts the attempt and reads the account in one statement, then writes together: one statement on PostgreSQL, one transaction on SQLite', async () => {
    const account = await createTestUser(t);
    const sent = recordStatements();
    const response = await postSignIn(t.app, account);
    vi.restoreAllMocks();
    expect(response.statusCode).toBe(200);

    // One statement asks the domain's SSO rule, counts the attempt and returns the account: no
    // read of its own for either.
    expect(sent.filter(isReservation)).toHaveLength(1);
    expect(sent.find(isReservation)?.text).toMatch(/from "users"/);
    expect(sent.find(isReservation)?.text).toMatch(/from "organization_domains"/);
    const beforeWrites = sent.slice(0, TEST_DB === 'postgres' ? sent.length : sent.findIndex(isBegin));
    expect(beforeWrites.filter(readsUsersAlone)).toEqual([]);
    expect(sent.filter(readsDomainsAlone)).toEqual([]);
    if (TEST_DB === 'postgres') {
      // The writes after the password check (count cleared, audit row, old session ended, new
      // session) as one statement, atomic without a transaction; both named and prepared.
      expect(sent.map((s) => s.name ?? s.text)).toEqual(['foyer_password_signin_reserve', 'foyer_signin_success']);
      expect(sent[1]?.text).toMatch(
        /^with "audited" as \(insert into "audit_events".*\), "ended" as \(delete from "sessions".*\), "started" as \(insert into "sessions".*\) delete from "login_failures"/s,
      );
      // The new session's account id comes from the account row only while it still has the
      // password just checked, under a share lock (a reset may be committing).
      expect(sent[1]?.text).toMatch(/\(select users\.id from users where users\.id = \$\d+ and users\.password_hash = \$\d+ .* for share\)/);
      return;
    }
    expect(sent).toHaveLength(7);
    // Each compiled once, as on PostgreSQL: building and compiling a query costs more main thread than SQLite's primary-key read.
    expect(builtPerCall(sent)).toEqual([]);
    const begin = sent.findIndex(isBegin);
    const commit = sent.findIndex(isCommit);
    expect(sent.filter(isBegin)).toHaveLength(1);
    expect(sent.filter(isCommit)).toHaveLength(1);
    const inside = sent.slice(begin + 1, commit);
    // First, whether the account still has the password just checked (a reset may have committed).
    expect(inside[0]?.text).toMatch(/^select "id" from "users" where "id" = \? and "password_hash" = \?/);
    expect(inside.slice(1).map((s) => /^\s*(\w+ \w+ "\w+")/.exec(s.text)?.[1])).toEqual([
      'delete from "login_failures"',
      'insert into "audit_events"',
      'insert into "sessions"',
    ]);
    expect(sent.filter((s) => isWrite(s) && !isReservation(s) && !inside.includes(s))).toEqual([]);
  });

  it('a failed sign-in counts, reads and writes its audit row without a transaction of its own', async () => {
    const sent = recordStatements();
    const response = await postSignIn(t.app, { email: uniqueEmail('nobody'), password: 'wrong' });
    vi.restoreAllMocks();
    expect(response.json()).toEqual({ errorMessage: 'invalidCredentials' });
    expect(sent.filter(isReservation)).toHaveLength(1);
    expect(sent.filter(readsUsersAlone)).toEqual([]);
    expect(sent.filter(readsDomainsAlone)).toEqual([]);
    expect(sent.filter(isBegin)).toEqual([]);
    expect(sent).toHaveLength(3);
    expect(builtPerCall(sent)).toEqual([]);
    expect(sent.filter((s) => isWrite(s) && !isReservation(s)).map((s) => /^\s*(\w+ \w+ "\w+")/.exec(s.text)?.[1])).toEqual([
      'insert into "audit_events"',
    ]);
    // On PostgreSQL all of it by named, prepared statements, the pending sign-ups' read included.
    if (TEST_DB === 'postgres') {
      expect(sent.map((s) => s.name ?? s.text)).toEqual(['foyer_password_signin_reserve', 'foyer_signup_pending_credentials', 'foyer_audit_insert']);
    }
  });

  it('a session check is one indexed read, prepared on PostgreSQL, and touches the session at most once an hour', async () => {
    const account = await createTestUser(t);
    const { otter, deviceId } = await signIn(t.app, account);

    let sent = recordStatements();
    expect((await getSession(t, otter, deviceId)).statusCode).toBe(200);
    expect((await getSession(t, otter, deviceId)).statusCode).toBe(200);
    vi.restoreAllMocks();
    expect(sent).toHaveLength(2);
    expect(sent.every(readsSessionsById)).toBe(true);
    expect(builtPerCall(sent)).toEqual([]);
    if (TEST_DB === 'postgres') expect(sent.map((s) => s.name)).toEqual(['foyer_sessions_with_users', 'foyer_sessions_with_users']);

    t.clock.advance(HOUR);
    sent = recordStatements();
    expect((await getSession(t, otter, deviceId)).statusCode).toBe(200);
    expect((await getSession(t, otter, deviceId)).statusCode).toBe(200);
    vi.restoreAllMocks();
    // The first check of the new hour moves last_seen_at; the next is a pure read again.
    expect(sent.map((s) => /^\s*(\w+)/.exec(s.text)?.[1]?.toLowerCase())).toEqual(['select', 'update', 'select']);
  });

  it('session checks that arrive together share one read, and each gets its own account or 401', async () => {
    const accounts = await Promise.all(Array.from({ length: 6 }, () => createTestUser(t)));
    const sessions: Array<{ otter: string; deviceId: string; email: string }> = [];
    for (const account of accounts) sessions.push({ ...(await signIn(t.app, account)), email: account.email });
    const [first, second] = sessions;
    if (first === undefined || second === undefined) throw new Error('no sessions to check');
    const checks = [
      ...sessions.map((session) => ({ otter: session.otter, deviceId: session.deviceId, email: session.email })),
      // The same session twice, a token from another device than its own, a token nobody was given.
      { otter: first.otter, deviceId: first.deviceId, email: first.email },
      { otter: second.otter, deviceId: 'otherdevice1', email: undefined },
      { otter: 'A'.repeat(43), deviceId: first.deviceId, email: undefined },
    ];

    const sent = recordStatements();
    const answers = await Promise.all(checks.map((check) => getSession(t, check.otter, check.deviceId)));
    vi.restoreAllMocks();

    expect(answers.map((answer) => answer.statusCode)).toEqual(checks.map((check) => (check.email === undefined ? 401 : 200)));
    expect(answers.map((answer) => (answer.statusCode === 200 ? (answer.json() as { user: { email: string } }).user.email : undefined))).toEqual(
      checks.map((check) => check.email),
    );
    // Nine checks, one statement: on PostgreSQL one round trip instead of nine.
    expect(sent).toHaveLength(1);
    expect(sent.every(readsSessionsById)).toBe(true);
  });
});

describe.skipIf(dbUnavailable)('statements per forum round trip (decision 0029)', () => {
  const t = useTestApp({ env: FORUM_ENV });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('reads the terms and claims the nonce with its audit row in prepared statements: one write statement on PostgreSQL, one transaction on SQLite', async () => {
    const member = await createTestUser(t, { verified: true });
    const { otter, deviceId } = await signIn(t.app, member);
    expect((await postWithToken(t, TERMS_AGREED_URL, {}, otter, deviceId)).statusCode).toBe(200);
    // The first answer may also forget expired nonces (once a minute): not counted.
    expect((await postWithToken(t, DISCOURSE_SSO_URL, forumRequest(), otter, deviceId)).statusCode).toBe(200);

    const sent = recordStatements();
    const response = await postWithToken(t, DISCOURSE_SSO_URL, forumRequest(), otter, deviceId);
    vi.restoreAllMocks();
    expect(response.statusCode).toBe(200);
    expect(builtPerCall(sent)).toEqual([]);
    const writes = sent.filter((s) => isWrite(s) || /^\s*with\b/i.test(s.text));
    if (TEST_DB === 'postgres') {
      // The session's read, the terms' read, and the claim with its audit row: three round trips.
      expect(sent).toHaveLength(3);
      expect(sent.filter((s) => isBegin(s) || isCommit(s))).toEqual([]);
      expect(sent.map((s) => s.name)).toEqual(['foyer_sessions_with_users', 'foyer_terms_agreed', 'foyer_nonce_claim_audited']);
      expect(writes.map((s) => s.name)).toEqual(['foyer_nonce_claim_audited']);
      expect(writes[0]?.text).toMatch(/^with "claimed" as \(insert into "discourse_nonces".*\) insert into "audit_events"/s);
    } else {
      expect(sent.filter(isBegin)).toHaveLength(1);
      expect(writes.map((s) => /^\s*(\w+ \w+ "\w+")/.exec(s.text)?.[1])).toEqual(['insert into "discourse_nonces"', 'insert into "audit_events"']);
    }
  });
});

describe.skipIf(dbUnavailable)('statements per Google callback of a returning account (decision 0029)', () => {
  const t = useGoogleTestApp();
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('spends the state, reads the domain and the account, then writes together: one statement on PostgreSQL, one transaction on SQLite', async () => {
    const email = uniqueEmail('returning');
    expect((await signInWithGoogle(t, { email })).json()).toMatchObject({ wasSignUp: true });
    const round = await googleRound(t, { email });

    const sent = recordStatements();
    const response = await exchange(t, round);
    vi.restoreAllMocks();
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ wasSignUp: false });

    expect(builtPerCall(sent)).toEqual([]);
    const writes = sent.filter((s) => isWrite(s) || /^\s*with\b/i.test(s.text));
    if (TEST_DB === 'postgres') {
      // The state spent, the domain's SSO rule, the account, and the sign-in's writes: four round
      // trips, where the account's transaction alone took six.
      expect(sent.map((s) => s.name ?? s.text)).toEqual([
        'foyer_social_auth_state_spend',
        'foyer_domain_find',
        'foyer_identity_account',
        'foyer_google_signin',
      ]);
      expect(writes.map((s) => s.name)).toEqual(['foyer_social_auth_state_spend', 'foyer_google_signin']);
      expect(writes[1]?.text).toMatch(
        /^with "audited" as \(insert into "audit_events".*\), "ended" as \(delete from "sessions".*\), "started" as \(insert into "sessions".*\) update "external_identities"/s,
      );
      return;
    }
    expect(writesOfOneTransaction(sent)).toEqual(['update "external_identities"', 'insert into "audit_events"', 'insert into "sessions"']);
  });
});

describe.skipIf(dbUnavailable)('statements per SAML response of a returning member (decision 0029)', () => {
  const t = useTestApp();
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('reads the connection, spends the request, remembers the assertion, reads the account, then writes together: five prepared statements on PostgreSQL', async () => {
    const first = await startedSaml(t);
    landing(await postAcs(t, first.corp.urls.acs, signedResponse(first.base)));
    const again = await startSso(t, first.email);
    const inResponseTo = readAuthnRequest(again.json<{ url: string }>().url).id;

    const sent = recordStatements();
    const response = await postAcs(t, first.corp.urls.acs, signedResponse({ ...first.base, inResponseTo }));
    vi.restoreAllMocks();
    expect(landing(response).get('transferToken')).not.toBeNull();
    expect(builtPerCall(sent)).toEqual([]);

    if (TEST_DB === 'postgres') {
      // Eight of them were the account's transaction: BEGIN, the domain, the account, the identity,
      // two audit rows, the earlier transfer tokens ended and the new one, COMMIT.
      expect(sent.map((s) => s.name ?? s.text)).toEqual([
        'foyer_sso_connection',
        'foyer_sso_request_spend',
        'foyer_sso_assertion_seen',
        'foyer_identity_account',
        'foyer_sso_signin',
      ]);
      expect(sent[4]?.text).toMatch(
        /^with "signed_in" as \(insert into "audit_events".*\), "superseded" as \(update "email_tokens".*\), "issued" as \(insert into "email_tokens".*\), "audited" as \(insert into "audit_events".*\) update "external_identities"/s,
      );
      return;
    }
    expect(writesOfOneTransaction(sent)).toEqual([
      'update "external_identities"',
      'insert into "audit_events"',
      'update "email_tokens"',
      'insert into "email_tokens"',
      'insert into "audit_events"',
    ]);
  });
});
