import { API_BASE, CALLS } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { mailsTo, postJson } from '../../test/account-entry.js';
import { createTestUser, dbUnavailable, getSession, newDeviceId, uniqueEmail, useTestApp } from '../../test/helpers.js';
import { EXIT, runAdmin } from './admin.js';

describe.skipIf(dbUnavailable)('admin CLI: user change-email', () => {
  const t = useTestApp();

  async function run(...argv: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await runAdmin(argv, { deps: t.deps, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
    return { code, stdout, stderr };
  }

  it('sends the same link as the call; using it moves the account', async () => {
    const account = await createTestUser(t);
    const newEmail = uniqueEmail('moved');
    const result = await run('user', 'change-email', '--email', account.email.toUpperCase(), '--new', newEmail);
    expect(result.code).toBe(EXIT.ok);
    expect(result.stdout).toContain(newEmail);
    expect(await mailsTo(t, account.email, 'emailChangeNotice')).toHaveLength(1);
    const [mail] = await mailsTo(t, newEmail, 'emailChange');
    const token = /\/verify-new-email\/([A-Za-z0-9_-]+)/.exec(mail?.text_body ?? '')?.[1] ?? '';
    const deviceId = newDeviceId();
    const response = await postJson(t, API_BASE + CALLS.verifyNewEmail.path, { token, deviceId });
    expect(response.statusCode).toBe(200);
    expect((await getSession(t, response.json<{ otter: string }>().otter, deviceId)).json()).toMatchObject({ user: { email: newEmail } });
  });

  it('refuses an unknown account, a taken or malformed new address with exit 1 and a reason, mailing nothing', async () => {
    const account = await createTestUser(t);
    const other = await createTestUser(t);
    const cases: Array<[string[], RegExp]> = [
      [['--email', uniqueEmail('nobody'), '--new', uniqueEmail()], /no account with email/],
      [['--email', account.email, '--new', other.email], /already exists/],
      [['--email', account.email, '--new', 'not-an-email'], /not valid/],
    ];
    for (const [args, message] of cases) {
      const result = await run('user', 'change-email', ...args);
      expect(result.code, args.join(' ')).toBe(EXIT.failed);
      expect(result.stderr).toMatch(message);
    }
    expect(await mailsTo(t, account.email)).toHaveLength(0);
    expect(await mailsTo(t, other.email)).toHaveLength(0);
  });

  it('answers a missing option with exit 2', async () => {
    expect((await run('user', 'change-email', '--email', 'a@example.com')).code).toBe(EXIT.usage);
  });
});
