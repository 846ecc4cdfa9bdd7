import { API_BASE, CALLS, DEVICE_ID_HEADER, normalizeEmail } from '@foyer/contract';
import { describe, expect, it } from 'vitest';
import { mailsTo, postJson } from '../../../test/account-entry.js';
import {
  HOUR,
  createTestUser,
  dbUnavailable,
  getSession,
  newDeviceId,
  postSignIn,
  sessionCookieName,
  signIn,
  uniqueEmail,
  useTestApp,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { listAuditEvents } from '../audit/audit.repo.js';
import { getFailureCount } from '../lockout/lockout.repo.js';
import { sha256Hex } from '../../lib/crypto.js';
import { AppError } from '../../lib/errors.js';
import { unitOfWork } from '../../lib/unit-of-work.js';
import { issueToken } from '../tokens/tokens.js';
import { findUserById } from '../users/users.repo.js';

const CHANGE_URL = API_BASE + CALLS.changeEmail.path;
const VERIFY_NEW_URL = API_BASE + CALLS.verifyNewEmail.path;
const VERIFY_NEW_CHECK_URL = API_BASE + CALLS.verifyNewEmailCheck.path;

/** The token of the `/verify-new-email/<token>` link in a mail's text. */
function newEmailToken(text: string): string {
  const match = /https?:\/\/\S+\/verify-new-email\/([A-Za-z0-9_-]+)/.exec(text);
  if (match?.[1] === undefined) throw new Error(`no verify-new-email link in:\n${text}`);
  return match[1];
}

const RESET_URL = API_BASE + CALLS.resetPassword.path;
const FORGOT_URL = API_BASE + CALLS.forgotPassword.path;

/** The account's links of one kind that still work. */
function openLinks(t: TestApp, userId: string, purpose: 'emailChange' | 'passwordReset') {
  return t.db.selectFrom('email_tokens').select('id').where('user_id', '=', userId).where('purpose', '=', purpose).where('used_at', 'is', null).execute();
}

interface Session {
  otter: string;
  deviceId: string;
}

function requestChange(t: TestApp, session: Session, body: { newEmail: string; password: string }) {
  return postJson(
    t,
    CHANGE_URL,
    { newEmail: body.newEmail, hashPassword: sha256Hex(body.password) },
    { cookies: { [sessionCookieName(t.config)]: session.otter }, headers: { [DEVICE_ID_HEADER]: session.deviceId } },
  );
}

/** A signed-in account that asked to move to a fresh address; the link's token from the mail. */
async function changeRequested(t: TestApp): Promise<{ account: TestUser; session: Session; newEmail: string; token: string }> {
  const account = await createTestUser(t);
  const session = await signIn(t.app, account);
  const newEmail = uniqueEmail('new');
  const response = await requestChange(t, session, { newEmail, password: account.password });
  expect(response.statusCode).toBe(200);
  const [mail] = await mailsTo(t, newEmail, 'emailChange');
  if (mail === undefined) throw new Error('no email-change mail');
  return { account, session, newEmail, token: newEmailToken(mail.text_body) };
}

describe.skipIf(dbUnavailable)('POST /api/account/changeEmail', () => {
  const t = useTestApp();

  it('mails the link to the new address only and a notice to the current one, changing nothing yet', async () => {
    const { account, newEmail, session } = await changeRequested(t);
    expect(await mailsTo(t, account.email, 'emailChange')).toHaveLength(0);
    const [notice] = await mailsTo(t, account.email, 'emailChangeNotice');
    expect(notice?.text_body).toContain(newEmail);
    expect(notice?.text_body).toContain('/forgot-password');
    expect((await getSession(t, session.otter, session.deviceId)).json()).toMatchObject({ user: { email: account.email } });
    expect(await listAuditEvents(t.db, { emailKey: account.user.email_key, type: 'email.changeRequested' })).toHaveLength(1);
  });

  it('refuses a wrong password with invalidCredentials, counts it towards the lockout and mails nothing', async () => {
    const account = await createTestUser(t);
    const session = await signIn(t.app, account);
    const newEmail = uniqueEmail('new');
    const response = await requestChange(t, session, { newEmail, password: 'not the password' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ errorMessage: 'invalidCredentials' });
    expect((await getFailureCount(t.db, account.user.email_key))?.failures).toBe(1);
    expect(await mailsTo(t, newEmail)).toHaveLength(0);
    expect(await mailsTo(t, account.email)).toHaveLength(0);
  });

  it('locks the email after the threshold of wrong passwords, as sign-in does', async () => {
    const account = await createTestUser(t);
    const session = await signIn(t.app, account);
    for (let i = 1; i < t.config.lockoutThreshold; i++) {
      expect((await requestChange(t, session, { newEmail: uniqueEmail(), password: `wrong-${i}` })).statusCode).toBe(401);
    }
    const last = await requestChange(t, session, { newEmail: uniqueEmail(), password: 'wrong again' });
    expect(last.json()).toEqual({ errorMessage: 'accountLocked' });
    // Locked: even the right password is refused now, here and at sign-in.
    expect((await requestChange(t, session, { newEmail: uniqueEmail(), password: account.password })).json()).toEqual({ errorMessage: 'accountLocked' });
    expect((await postSignIn(t.app, account)).json()).toEqual({ errorMessage: 'accountLocked' });
  });

  it('answers a taken address exactly as a free one, mails no link to it and the same notice to the current one', async () => {
    const account = await createTestUser(t);
    const other = await createTestUser(t);
    const session = await signIn(t.app, account);
    const free = uniqueEmail('free');
    const taken = await requestChange(t, session, { newEmail: other.email, password: account.password });
    const open = await requestChange(t, session, { newEmail: free, password: account.password });
    expect(taken.statusCode).toBe(open.statusCode);
    expect(taken.body).toBe(open.body);
    expect(await mailsTo(t, other.email)).toHaveLength(0);
    expect(await mailsTo(t, free, 'emailChange')).toHaveLength(1);
    const notices = await mailsTo(t, account.email, 'emailChangeNotice');
    expect(notices.map((mail) => mail.subject)).toEqual([notices[0]?.subject, notices[0]?.subject]);
  });

  it('answers 503 and counts no failure when the hashing threads turn the password check away (decision 0011)', async () => {
    const account = await createTestUser(t);
    const session = await signIn(t.app, account);
    const passwords = t.app.passwords;
    const verify = passwords.verify.bind(passwords);
    passwords.verify = () => Promise.reject(new AppError('unavailable'));
    try {
      for (let i = 0; i < 12; i++)
        expect((await requestChange(t, session, { newEmail: uniqueEmail('busy'), password: account.password })).statusCode).toBe(503);
    } finally {
      passwords.verify = verify;
    }
    expect((await getFailureCount(t.db, normalizeEmail(account.email)))?.failures ?? 0).toBe(0);
    expect((await requestChange(t, session, { newEmail: uniqueEmail('after'), password: account.password })).statusCode).toBe(200);
  });

  it('issues no link when a password reset lands while the password is checked: the reset ends the request too', async () => {
    const account = await createTestUser(t);
    const session = await signIn(t.app, account);
    const reset = await issueToken(unitOfWork(t), { userId: account.user.id, purpose: 'passwordReset' });
    const passwords = t.app.passwords;
    const verify = passwords.verify.bind(passwords);
    // The owner resets the password after the old one was checked, before the link is issued.
    passwords.verify = async (stored, presented) => {
      const matched = await verify(stored, presented);
      passwords.verify = verify;
      const resetResponse = await postJson(t, RESET_URL, { token: reset, hashPassword: sha256Hex('a brand new passphrase') });
      expect(resetResponse.statusCode).toBe(200);
      return matched;
    };
    const newEmail = uniqueEmail('raced');
    try {
      expect((await requestChange(t, session, { newEmail, password: account.password })).json()).toEqual({ errorMessage: 'invalidCredentials' });
    } finally {
      passwords.verify = verify;
    }
    expect(await mailsTo(t, newEmail, 'emailChange')).toHaveLength(0);
    expect(await openLinks(t, account.user.id, 'emailChange')).toEqual([]);
  });

  it('answers notSignedIn without a session', async () => {
    const response = await postJson(t, CHANGE_URL, { newEmail: uniqueEmail(), hashPassword: sha256Hex('whatever it is') });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ errorMessage: 'notSignedIn' });
  });

  it('refuses a malformed new address with invalidRequest', async () => {
    const account = await createTestUser(t);
    const session = await signIn(t.app, account);
    const response = await requestChange(t, session, { newEmail: 'not an email', password: account.password });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ errorMessage: 'invalidRequest' });
  });
});

describe.skipIf(dbUnavailable)('POST /api/account/verifyNewEmail', () => {
  const t = useTestApp();

  it('switches the address, ends the other sessions and signs this browser in', async () => {
    const { account, session, newEmail, token } = await changeRequested(t);
    const elsewhere = await signIn(t.app, account);
    const deviceId = newDeviceId();
    const response = await postJson(t, VERIFY_NEW_URL, { token, deviceId });
    expect(response.statusCode).toBe(200);
    const { otter } = response.json<{ otter: string }>();
    expect(response.json()).toEqual({ otter });
    expect(response.cookies.find((cookie) => cookie.name === sessionCookieName(t.config))?.value).toBe(otter);
    expect((await getSession(t, otter, deviceId)).json()).toMatchObject({ user: { email: newEmail, emailVerified: true } });
    expect((await getSession(t, session.otter, session.deviceId)).statusCode).toBe(401);
    expect((await getSession(t, elsewhere.otter, elsewhere.deviceId)).statusCode).toBe(401);
    // The password stays; the old address no longer signs in.
    expect((await postSignIn(t.app, { email: newEmail, password: account.password })).statusCode).toBe(200);
    expect((await postSignIn(t.app, account)).json()).toEqual({ errorMessage: 'invalidCredentials' });
    expect((await findUserById(t.db, account.user.id))?.email_key).toBe(normalizeEmail(newEmail));
  });

  it('ends the transfer tokens issued before the address changed: none of them starts a session afterwards', async () => {
    const { account, token } = await changeRequested(t);
    const transfer = await issueToken(unitOfWork(t.deps), { userId: account.user.id, purpose: 'transfer' });
    expect((await postJson(t, VERIFY_NEW_URL, { token, deviceId: newDeviceId() })).statusCode).toBe(200);
    const exchanged = await postJson(t, API_BASE + CALLS.exchangeSSOTransferToken.path, { token: transfer, deviceId: newDeviceId() });
    expect(exchanged.json()).toEqual({ errorMessage: 'ssoTransferFailed' });
  });

  it('checks a link without spending it: its new address, and whether this browser is signed in to another account (login CSRF)', async () => {
    const { account, session, newEmail, token } = await changeRequested(t);
    const asking = (as?: Session) =>
      postJson(
        t,
        VERIFY_NEW_CHECK_URL,
        { token },
        as === undefined ? {} : { cookies: { [sessionCookieName(t.config)]: as.otter }, headers: { [DEVICE_ID_HEADER]: as.deviceId } },
      );
    // Signed out, or signed in to the link's own account: the page goes on at once.
    expect((await asking()).json()).toEqual({ email: newEmail, signedInElsewhere: false });
    expect((await asking(session)).json()).toEqual({ email: newEmail, signedInElsewhere: false });
    // Signed in to someone else's account: the page asks first.
    const other = await signIn(t.app, await createTestUser(t));
    expect((await asking(other)).json()).toEqual({ email: newEmail, signedInElsewhere: true });
    // Nothing was spent or changed.
    expect((await findUserById(t.db, account.user.id))?.email_key).toBe(normalizeEmail(account.email));
    expect((await postJson(t, VERIFY_NEW_URL, { token, deviceId: newDeviceId() })).statusCode).toBe(200);
    // Spent: refused as the link itself is.
    expect((await asking()).json()).toEqual({ errorMessage: 'invalidToken' });
    const expiring = await changeRequested(t);
    t.clock.advance(24 * HOUR + 1);
    expect((await postJson(t, VERIFY_NEW_CHECK_URL, { token: expiring.token })).json()).toEqual({ errorMessage: 'tokenExpired' });
  });

  it('refuses a used link with invalidToken', async () => {
    const { token } = await changeRequested(t);
    expect((await postJson(t, VERIFY_NEW_URL, { token, deviceId: newDeviceId() })).statusCode).toBe(200);
    const again = await postJson(t, VERIFY_NEW_URL, { token, deviceId: newDeviceId() });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ errorMessage: 'invalidToken' });
  });

  it('refuses an expired link with tokenExpired and changes nothing', async () => {
    const { account, token } = await changeRequested(t);
    t.clock.advance(24 * HOUR + 1);
    const response = await postJson(t, VERIFY_NEW_URL, { token, deviceId: newDeviceId() });
    expect(response.statusCode).toBe(410);
    expect(response.json()).toEqual({ errorMessage: 'tokenExpired' });
    expect((await findUserById(t.db, account.user.id))?.email).toBe(account.email);
  });

  it('refuses a link superseded by a newer request', async () => {
    const { account, session, token } = await changeRequested(t);
    const newer = uniqueEmail('newer');
    expect((await requestChange(t, session, { newEmail: newer, password: account.password })).statusCode).toBe(200);
    expect((await postJson(t, VERIFY_NEW_URL, { token, deviceId: newDeviceId() })).json()).toEqual({ errorMessage: 'invalidToken' });
    const [mail] = await mailsTo(t, newer, 'emailChange');
    expect((await postJson(t, VERIFY_NEW_URL, { token: newEmailToken(mail?.text_body ?? ''), deviceId: newDeviceId() })).statusCode).toBe(200);
  });

  it("ends the earlier link on a request for a taken address too, so the requester's own link cannot tell taken from free", async () => {
    for (const kind of ['taken', 'free'] as const) {
      const { account, session, token } = await changeRequested(t);
      const probed = kind === 'taken' ? (await createTestUser(t)).email : uniqueEmail('probed');
      expect((await requestChange(t, session, { newEmail: probed, password: account.password })).statusCode).toBe(200);
      const earlier = await postJson(t, VERIFY_NEW_URL, { token, deviceId: newDeviceId() });
      expect([kind, earlier.statusCode, earlier.json()]).toEqual([kind, 400, { errorMessage: 'invalidToken' }]);
    }
  });

  it('refuses an address taken since the link was sent with the generic code, saying nothing of its holder', async () => {
    const { account, newEmail, token } = await changeRequested(t);
    const holder = await createTestUser(t, { email: newEmail });
    const response = await postJson(t, VERIFY_NEW_URL, { token, deviceId: newDeviceId() });
    const unknown = await postJson(t, VERIFY_NEW_URL, { token: 'B'.repeat(43), deviceId: newDeviceId() });
    expect(response.statusCode).toBe(unknown.statusCode);
    expect(response.body).toBe(unknown.body);
    expect(response.body).not.toContain(holder.user.id);
    expect((await findUserById(t.db, account.user.id))?.email).toBe(account.email);
    expect((await findUserById(t.db, holder.user.id))?.email).toBe(newEmail);
    expect(await listAuditEvents(t.db, { emailKey: account.user.email_key, type: 'email.changeRefused' })).toHaveLength(1);
  });

  it('answers accountNotSetUp for an account that lacks its password, and spends nothing', async () => {
    const account = await createTestUser(t, { withoutPassword: true });
    const token = await issueToken(unitOfWork(t), { userId: account.user.id, purpose: 'emailChange', newEmail: uniqueEmail('new') });
    const response = await postJson(t, VERIFY_NEW_URL, { token, deviceId: newDeviceId() });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual({ errorMessage: 'accountNotSetUp' });
    const row = await t.db.selectFrom('email_tokens').select('used_at').where('id', '=', sha256Hex(token)).executeTakeFirst();
    expect(row?.used_at).toBeNull();
  });

  it('answers the allowed next as redirectUrl and ignores one outside the allow-list', async () => {
    const first = await changeRequested(t);
    const allowed = await postJson(t, VERIFY_NEW_URL, { token: first.token, deviceId: newDeviceId(), next: '/settings/emails' });
    expect(allowed.json()).toMatchObject({ redirectUrl: '/settings/emails' });
    const second = await changeRequested(t);
    const outside = await postJson(t, VERIFY_NEW_URL, { token: second.token, deviceId: newDeviceId(), next: 'https://evil.example/steal' });
    expect(outside.statusCode).toBe(200);
    expect(outside.json()).not.toHaveProperty('redirectUrl');
  });

  it('is not opened by a link of another kind', async () => {
    const account = await createTestUser(t, { verified: false });
    const token = await issueToken(unitOfWork(t), { userId: account.user.id, purpose: 'verifyEmail' });
    expect((await postJson(t, VERIFY_NEW_URL, { token, deviceId: newDeviceId() })).json()).toEqual({ errorMessage: 'invalidToken' });
  });

  it('leaves no live reset link at the old address when reset requests race the change being confirmed, and no 5xx', async () => {
    const { account, token } = await changeRequested(t);
    const forgot = () => postJson(t, FORGOT_URL, { email: account.email });
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, forgot),
      postJson(t, VERIFY_NEW_URL, { token, deviceId: newDeviceId() }),
      ...Array.from({ length: 6 }, forgot),
    ]);
    expect(answers.map((answer) => answer.statusCode).filter((status) => status >= 500)).toEqual([]);
    expect(answers[6]?.statusCode).toBe(200);
    // Whatever was mailed to the old address before the change, the change ended; nothing after it.
    expect(await openLinks(t, account.user.id, 'passwordReset')).toEqual([]);
  });

  it('ends with a password reset', async () => {
    const { account, token } = await changeRequested(t);
    const reset = await issueToken(unitOfWork(t), { userId: account.user.id, purpose: 'passwordReset' });
    const resetResponse = await postJson(t, RESET_URL, { token: reset, hashPassword: sha256Hex('a brand new passphrase') });
    expect(resetResponse.statusCode).toBe(200);
    expect((await postJson(t, VERIFY_NEW_URL, { token, deviceId: newDeviceId() })).json()).toEqual({ errorMessage: 'invalidToken' });
  });
});
