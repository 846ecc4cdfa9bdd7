import { normalizeEmail } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { createTestUser, dbUnavailable, getSession, newDeviceId, postSignIn, signIn, uniqueEmail, useTestApp } from '../../test/helpers.js';
import { listAuditEvents } from '../features/audit/audit.repo.js';
import { getFailureCount } from '../features/lockout/lockout.repo.js';
import { findUserByEmailKey } from '../features/users/users.repo.js';
import { postJson } from '../../test/account-entry.js';
import { EXCHANGE_OTTER_URL } from '../../test/community.js';
import { TRANSFER_URL } from '../../test/google.js';
import { unitOfWork } from '../lib/unit-of-work.js';
import { issueToken } from '../features/tokens/tokens.js';
import { EXIT, runAdmin } from './admin.js';

describe.skipIf(dbUnavailable)('admin CLI', () => {
  const t = useTestApp();

  async function run(...argv: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await runAdmin(argv, {
      deps: t.deps,
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
    });
    return { code, stdout, stderr };
  }

  const create = (email: string, ...extra: string[]) =>
    run('user', 'create', '--email', email, '--password', 'correct horse', '--first-name', 'Grace', '--last-name', 'Hopper', ...extra);

  it('creates a verified user who can sign in with that password', async () => {
    const email = uniqueEmail('grace');
    const result = await create(email);
    expect(result.code).toBe(EXIT.ok);
    expect(result.stdout).toMatch(new RegExp(`^Created user ${email} \\([A-Za-z0-9_-]{22}\\)\\n$`));
    expect(result.stderr).toBe('');
    expect((await postSignIn(t.app, { email, password: 'correct horse' })).statusCode).toBe(200);
    expect((await listAuditEvents(t.db, { emailKey: email, type: 'user.created' })).length).toBe(1);
  });

  it('creates an unverified user with --unverified', async () => {
    const email = uniqueEmail();
    expect((await create(email, '--unverified')).code).toBe(EXIT.ok);
    const response = await postSignIn(t.app, { email, password: 'correct horse' });
    expect(response.json()).toEqual({ errorMessage: 'unverifiedAccount' });
  });

  it('takes a password that begins with a dash as the value, and still names a value that is missing', async () => {
    const email = uniqueEmail('dash');
    const password = '-Te80yqXYhSLfzBFY';
    const created = await run('user', 'create', '--email', email, '--password', password, '--first-name', 'Dee', '--last-name', 'Ash');
    expect(created.code, created.stderr).toBe(EXIT.ok);
    expect((await postSignIn(t.app, { email, password })).statusCode).toBe(200);

    const missing = await run('user', 'create', '--email', uniqueEmail(), '--password', '--first-name', 'Dee', '--last-name', 'Ash');
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.stderr).toContain('--password');
  });

  it('refuses bad input with exit 1 and a reason', async () => {
    const taken = uniqueEmail();
    await create(taken);
    const cases: Array<[string[], RegExp]> = [
      [['--email', 'not-an-email', '--password', 'long enough', '--first-name', 'A', '--last-name', 'B'], /email address is not valid/],
      [['--email', uniqueEmail(), '--password', 'short', '--first-name', 'A', '--last-name', 'B'], /password must be 8/],
      [['--email', uniqueEmail(), '--password', 'password', '--first-name', 'A', '--last-name', 'B'], /most common passwords/],
      [['--email', uniqueEmail(), '--password', 'aaaaaaaaaa', '--first-name', 'A', '--last-name', 'B'], /most common passwords/],
      [['--email', uniqueEmail(), '--password', 'long enough', '--first-name', '  ', '--last-name', 'B'], /first name/],
      [['--email', uniqueEmail(), '--password', 'long enough', '--first-name', 'A', '--last-name', ''], /last name/],
      // The rules of every call's PersonName: at most 100 characters, no control character.
      [['--email', uniqueEmail(), '--password', 'long enough', '--first-name', 'x'.repeat(101), '--last-name', 'B'], /first name/],
      [['--email', uniqueEmail(), '--password', 'long enough', '--first-name', 'A', '--last-name', 'x\ny'], /last name/],
      [['--email', uniqueEmail(), '--password', 'long enough', '--first-name', 'A\u0000', '--last-name', 'B'], /first name/],
      [['--email', taken.toUpperCase(), '--password', 'long enough', '--first-name', 'A', '--last-name', 'B'], /already exists/],
    ];
    for (const [args, message] of cases) {
      const result = await run('user', 'create', ...args);
      expect(result.code, args.join(' ')).toBe(EXIT.failed);
      expect(result.stderr).toMatch(message);
      expect(result.stdout).toBe('');
    }
  });

  it('answers usage errors with exit 2', async () => {
    const missing = await run('user', 'create', '--email', uniqueEmail());
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.stderr).toContain('missing --password');
    expect(missing.stderr).toContain('Usage:');

    const unknownFlag = await run('user', 'unlock', '--email', 'a@example.com', '--force');
    expect(unknownFlag.code).toBe(EXIT.usage);
    expect(unknownFlag.stderr).toContain('--force');

    const unknownCommand = await run('user', 'delete');
    expect(unknownCommand.code).toBe(EXIT.usage);
    expect(unknownCommand.stderr).toContain('unknown command "user delete"');

    expect((await run()).code).toBe(EXIT.usage);

    // Help where an option's value belongs is a wrong command line, not help that did nothing.
    const email = uniqueEmail();
    for (const help of ['-h', '--help']) {
      const asValue = await run('user', 'create', '--email', email, '--password', 'long enough', '--first-name', help, '--last-name', 'Lee');
      expect(asValue.code, help).toBe(EXIT.usage);
      expect(asValue.stderr, help).toContain('Usage:');
    }
    expect(await findUserByEmailKey(t.db, normalizeEmail(email))).toBeUndefined();
  });

  it('prints help to stdout with exit 0', async () => {
    const help = await run('--help');
    expect(help.code).toBe(EXIT.ok);
    expect(help.stdout).toContain('user create');
    expect((await run('user', 'create', '--help')).code).toBe(EXIT.ok);
    expect((await run('user', 'create', '--email', 'a@example.com', '--help')).code).toBe(EXIT.ok);
  });

  it('deactivates an account and ends its sessions', async () => {
    const account = await createTestUser(t);
    const session = await signIn(t.app, account);
    const result = await run('user', 'deactivate', '--email', account.email);
    expect(result.code).toBe(EXIT.ok);
    expect(result.stdout).toContain('Deactivated user');
    expect((await getSession(t, session.otter, session.deviceId)).statusCode).toBe(401);
    expect((await postSignIn(t.app, account)).json()).toEqual({ errorMessage: 'deactivatedAccount' });
  });

  it('says so when there is no account to deactivate', async () => {
    const result = await run('user', 'deactivate', '--email', uniqueEmail());
    expect(result.code).toBe(EXIT.failed);
    expect(result.stderr).toContain('no account');
  });

  it('lets a deactivated account sign in again, its earlier sessions still ended', async () => {
    const account = await createTestUser(t);
    const session = await signIn(t.app, account);
    await run('user', 'deactivate', '--email', account.email);
    const result = await run('user', 'reactivate', '--email', account.email);
    expect(result.code, result.stderr).toBe(EXIT.ok);
    expect(result.stdout).toContain('Reactivated user');
    expect((await getSession(t, session.otter, session.deviceId)).statusCode).toBe(401);
    expect((await postSignIn(t.app, account)).statusCode).toBe(200);
    expect((await listAuditEvents(t.db, { emailKey: normalizeEmail(account.email), type: 'user.reactivated' })).length).toBe(1);
    expect((await run('user', 'reactivate', '--email', account.email)).stdout).toContain('not deactivated');
    expect((await run('user', 'reactivate', '--email', uniqueEmail())).code).toBe(EXIT.failed);
  });

  it("signs one account out everywhere (sessions, device tokens, transfer tokens), leaving the account and everyone else's sessions", async () => {
    const account = await createTestUser(t);
    const browser = await signIn(t.app, account);
    const device = await signIn(t.app, account);
    const exchanged = await postJson(t, EXCHANGE_OTTER_URL, { otterToken: device.otter, deviceId: device.deviceId });
    const { deviceToken } = exchanged.json<{ deviceToken: string }>();
    const transfer = await issueToken(unitOfWork(t.deps), { userId: account.user.id, purpose: 'transfer' });
    const bystander = await signIn(t.app, await createTestUser(t));

    const result = await run('user', 'sign-out', '--email', account.email);
    expect(result.code, result.stderr).toBe(EXIT.ok);
    expect(result.stdout).toContain('2 session(s) and device token(s) ended');
    expect((await getSession(t, browser.otter, browser.deviceId)).statusCode).toBe(401);
    expect((await getSession(t, deviceToken, device.deviceId)).statusCode).toBe(401);
    expect((await postJson(t, TRANSFER_URL, { token: transfer, deviceId: newDeviceId() })).json()).toEqual({ errorMessage: 'ssoTransferFailed' });
    expect((await getSession(t, bystander.otter, bystander.deviceId)).statusCode).toBe(200);
    expect((await postSignIn(t.app, account)).statusCode).toBe(200);
    const [audit] = await listAuditEvents(t.db, { emailKey: normalizeEmail(account.email), type: 'user.signedOut' });
    expect(JSON.parse(audit?.detail ?? '{}')).toEqual({ sessionsEnded: 2 });
    expect((await run('user', 'sign-out', '--email', uniqueEmail())).code).toBe(EXIT.failed);
  });

  it('ends every session of every account at once', async () => {
    const sessions = [await signIn(t.app, await createTestUser(t)), await signIn(t.app, await createTestUser(t))];
    const result = await run('sessions', 'end-all');
    expect(result.code, result.stderr).toBe(EXIT.ok);
    for (const session of sessions) expect((await getSession(t, session.otter, session.deviceId)).statusCode).toBe(401);
    expect(await t.db.selectFrom('sessions').select('id').execute()).toEqual([]);
    expect((await listAuditEvents(t.db, { type: 'sessions.allEnded' })).length).toBe(1);
  });

  it('unlocks a locked email, with or without an account', async () => {
    const account = await createTestUser(t);
    const ghost = uniqueEmail('ghost');
    for (let i = 0; i < 10; i++) {
      await postSignIn(t.app, { email: account.email, password: 'wrong' });
      await postSignIn(t.app, { email: ghost, password: 'wrong' });
    }
    expect((await postSignIn(t.app, account)).statusCode).toBe(423);

    expect((await run('user', 'unlock', '--email', account.email.toUpperCase())).code).toBe(EXIT.ok);
    expect((await postSignIn(t.app, account)).statusCode).toBe(200);

    const result = await run('user', 'unlock', '--email', ghost);
    expect(result.code).toBe(EXIT.ok);
    expect(result.stdout).toContain(`Unlocked ${ghost}`);
    expect(await getFailureCount(t.db, normalizeEmail(ghost))).toBeUndefined();
    expect((await run('user', 'unlock', '--email', ghost)).stdout).toContain('nothing to unlock');
  });
});
