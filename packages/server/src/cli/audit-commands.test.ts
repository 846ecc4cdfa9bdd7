import { normalizeEmail } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { VERIFY_URL, latestToken, postJson, postSignUp, signUpBody } from '../../test/account-entry.js';
import { MINUTE, createTestUser, dbUnavailable, newDeviceId, postSignIn, uniqueEmail, useTestApp } from '../../test/helpers.js';
import { postReset, requestResetToken } from '../../test/password.js';
import { unitOfWork } from '../lib/unit-of-work.js';
import { recordAudit } from '../features/audit/audit.service.js';
import { EXIT, runAdmin } from './admin.js';

describe.skipIf(dbUnavailable)('admin CLI: audit --email E [--limit N]', () => {
  const t = useTestApp();

  async function run(...argv: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await runAdmin(argv, { deps: t.deps, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
    return { code, stdout, stderr };
  }

  it('prints the events of a normalised email newest first, as aligned columns', async () => {
    const account = await createTestUser(t);
    const agent = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0' };
    // Each step a minute apart: events of the same millisecond have no order among themselves.
    t.clock.advance(MINUTE);
    await postSignIn(t.app, { email: account.email, password: 'wrong' });
    t.clock.advance(MINUTE);
    for (let i = 0; i < 9; i++) await postSignIn(t.app, { email: account.email, password: 'wrong' });
    t.clock.advance(31 * MINUTE);
    t.clock.advance(MINUTE);
    const token = await requestResetToken(t, account.email, { headers: agent, remoteAddress: '198.51.100.23' });
    t.clock.advance(MINUTE);
    await postReset(t, token, 'a brand new password', { headers: agent });
    t.clock.advance(MINUTE);
    await postSignIn(t.app, { email: account.email, password: 'a brand new password' });

    const result = await run('audit', '--email', `  ${account.email.toUpperCase()} `);
    expect(result.code).toBe(EXIT.ok);
    expect(result.stderr).toBe('');
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^TIME +TYPE +IP +USER AGENT$/);
    // TYPE begins after a full ISO time (24 characters) and two spaces.
    expect(lines[0]?.indexOf('TYPE')).toBe(26);
    const types = lines.slice(1).map((line) => line.split(/\s{2,}/)[1]);
    expect(types.slice(0, 3)).toEqual(['signin.success', 'password.reset', 'password.resetRequested']);
    expect(types).toContain('signin.locked');
    expect(types.at(-1)).toBe('user.created');
    expect(lines.length - 1).toBe(1 + 10 + 1 + 1 + 1 + 1);
    // Columns line up: each type starts where the header's TYPE does, each address where IP does.
    const typeAt = lines[0]?.indexOf('TYPE');
    const ipAt = lines[0]?.indexOf('IP');
    for (const line of lines.slice(1)) {
      expect(line.slice(typeAt).startsWith(' ')).toBe(false);
      expect(line[(typeAt ?? 0) - 1]).toBe(' ');
      expect(line[(ipAt ?? 0) - 1]).toBe(' ');
    }
    const requested = lines.find((line) => line.includes('password.resetRequested')) ?? '';
    expect(requested).toMatch(
      /^2030-01-15T09:34:00\.000Z {2}password\.resetRequested {2,}198\.51\.100\.23 {2,}Mozilla\/5\.0 \(X11; Linux x86_64\) Firefox\/140\.0$/,
    );
    // The admin CLI's own events have no address: shown as a dash.
    expect(lines.at(-1)).toMatch(/user\.created +- +foyer-admin-cli$/);
  });

  it('shows sign-up and verification events too', async () => {
    const body = signUpBody();
    await postSignUp(t, body);
    t.clock.advance(MINUTE);
    await postJson(t, VERIFY_URL, { token: await latestToken(t, body.email, 'verifyEmail'), deviceId: newDeviceId() });
    const types = (await run('audit', '--email', body.email)).stdout
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => line.split(/\s{2,}/)[1]);
    // Verification and setup are one transaction, of one millisecond.
    expect(types.slice(0, 2).sort()).toEqual(['email.verified', 'setup.completed']);
    expect(types.slice(2)).toEqual(['signup']);
  });

  it('keeps to --limit, 50 by default', async () => {
    const email = uniqueEmail('many');
    for (let i = 0; i < 60; i++) {
      await recordAudit(unitOfWork(t.deps), { type: 'signin.failure', meta: { ip: '192.0.2.1', userAgent: 'ua' }, emailKey: normalizeEmail(email) });
      t.clock.advance(1000);
    }
    expect((await run('audit', '--email', email)).stdout.trimEnd().split('\n')).toHaveLength(1 + 50);
    const two = (await run('audit', '--email', email, '--limit', '2')).stdout.trimEnd().split('\n');
    expect(two).toHaveLength(3);
    expect(two[1]).toContain(new Date(t.clock.now() - 1000).toISOString());
  });

  it('replaces control characters a request put in a user agent (no terminal escape injection)', async () => {
    const email = uniqueEmail('escape');
    await recordAudit(unitOfWork(t.deps), {
      type: 'signin.failure',
      meta: { ip: '192.0.2.1', userAgent: 'evil\u001b[2J\u001b]0;owned\u0007\nline' },
      emailKey: email,
    });
    const result = await run('audit', '--email', email);
    // eslint-disable-next-line no-control-regex -- looking for control characters is the point
    expect(result.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(result.stdout).toContain('evil [2J ]0;owned  line');
  });

  it('says so when an email has no events, and refuses a bad command line with exit 2', async () => {
    const none = await run('audit', '--email', uniqueEmail('quiet'));
    expect(none.code).toBe(EXIT.ok);
    expect(none.stdout).toMatch(/^No audit events for quiet-[0-9a-f]+@example\.com\n$/);
    for (const argv of [['audit'], ['audit', '--email', 'a@example.com', '--limit', '0'], ['audit', '--email', 'a@example.com', '--limit', 'ten']]) {
      const result = await run(...argv);
      expect(result.code, argv.join(' ')).toBe(EXIT.usage);
      expect(result.stderr).toContain('Usage:');
    }
    expect((await run('--help')).stdout).toContain('audit --email E [--limit N]');
  });
});
