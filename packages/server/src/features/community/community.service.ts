import type { SessionUser } from '@foyer/contract';
import type { Deps } from '../../deps.js';
import { sha256Hex } from '../../lib/crypto.js';
import { AppError } from '../../lib/errors.js';
import { expirySweep } from '../../lib/expiry-sweep.js';
import { inTransaction, unitOfWork } from '../../lib/unit-of-work.js';
import { auditRow, recordAudit, type RequestMeta } from '../audit/audit.service.js';
import type { ActiveSession } from '../sessions/sessions.service.js';
import { claimNonceAudited, deleteExpiredNonces, hasAgreedToTerms, insertTermsAgreement } from './community.repo.js';
import { answerQuery, answerUrl, readRequest, signAnswer, type Assertion } from './discourse-connect.js';

/**
 * Discourse keeps a nonce 10 minutes; Foyer remembers the ones it answered for a day, well past
 * the time Discourse would still accept an answer carrying one.
 */
const NONCE_MEMORY_MS = 24 * 60 * 60 * 1000;
/**
 * A nonce row past its expiry only keeps its nonce refused a little longer, which Discourse, whose
 * nonces are random and expire long before, never notices.
 */
const forgetExpiredNonces = expirySweep(deleteExpiredNonces);

interface Forum {
  secret: string;
  origin: string;
}

/** The forum this deployment serves, or notFound when forum sign-in is not configured. */
function forumOf(deps: Pick<Deps, 'config'>): Forum {
  const secret = deps.config.discourseConnectSecret;
  const community = deps.config.serverUrls.community;
  if (secret === undefined || community === undefined) throw new AppError('notFound');
  return { secret, origin: new URL(community).origin };
}

/**
 * Only the configured forum may receive an answer: anything else would hand a signed identity to a
 * stranger. The address must also pass the allow-list as it is written (ARCHITECTURE.md), since the
 * page navigates to it only then: no spaces, control characters or backslashes that a browser
 * would quietly repair.
 */
function onForum(returnSsoUrl: string, forum: Forum, redirects: Deps['redirects']): boolean {
  if (redirects.allowed(returnSsoUrl) === undefined) return false;
  try {
    const url = new URL(returnSsoUrl);
    return url.origin === forum.origin && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

/** A username Discourse accepts as a suggestion: 3 to 20 of [A-Za-z0-9_], from the names or the email. */
export function suggestedUsername(user: Pick<SessionUser, 'firstName' | 'lastName' | 'email'>): string {
  const clean = (value: string) =>
    value
      .normalize('NFKD')
      .replace(/[^A-Za-z0-9_]/g, '')
      .slice(0, 20);
  const fromNames = clean(`${user.firstName ?? ''}${user.lastName ?? ''}`);
  if (fromNames.length >= 3) return fromNames;
  const fromEmail = clean(user.email.split('@')[0] ?? '');
  return fromEmail.length >= 3 ? fromEmail : `member${fromEmail}`;
}

export interface DiscourseSsoAnswer {
  termsAgreed: boolean;
  redirectUrl: string;
}

/**
 * Spec §7 `community/discourseSso` (decision 0021). The payload is checked before the session, so a
 * forged or foreign request is refused whoever sends it. Without the current terms accepted the
 * answer is `termsAgreed: false` with no address and the nonce stays unanswered: the page sends
 * the person to the terms and comes back with the same payload.
 */
export async function answerDiscourseSso(
  deps: Deps,
  input: { ssoPayload: string; signature: string; session: () => Promise<ActiveSession> },
  meta: RequestMeta,
): Promise<DiscourseSsoAnswer> {
  const forum = forumOf(deps);
  const request = readRequest(forum.secret, input.ssoPayload, input.signature);
  if ('refused' in request || !onForum(request.returnSsoUrl, forum, deps.redirects)) {
    const reason = 'refused' in request ? request.refused : 'returnUrl';
    await recordAudit(unitOfWork(deps), { type: 'community.refused', meta, detail: { reason } });
    throw new AppError('invalidSsoPayload');
  }
  // The session's read already joined the account (sessions.repo.ts): no read of its own.
  const { user, emailKey } = await input.session();
  if (!(await hasAgreedToTerms(deps.db, user.id, deps.config.communityTermsVersion))) return { termsAgreed: false, redirectUrl: '' };

  await forgetExpiredNonces(deps);
  const now = deps.clock.now();
  const verified = user.emailVerified;
  const claimed = await claimNonceAudited(
    deps.db,
    { id: sha256Hex(request.nonce), user_id: user.id, answered_at: now, expires_at: now + NONCE_MEMORY_MS },
    auditRow(now, { type: 'community.signin', meta, userId: user.id, emailKey, detail: { emailVerified: verified } }),
  );
  if (!claimed) {
    // A replayed nonce: someone presents a request that was already answered (a copied link).
    await recordAudit(unitOfWork(deps), { type: 'community.refused', meta, userId: user.id, detail: { reason: 'nonceReplayed' } });
    throw new AppError('invalidSsoPayload');
  }
  const assertion: Assertion = {
    nonce: request.nonce,
    email: user.email,
    // The account's stable id: an email can change, and Discourse links accounts by this.
    externalId: user.id,
    username: suggestedUsername(user),
    name: [user.firstName, user.lastName].filter((part) => part !== null && part !== '').join(' '),
    // An address nobody proved is never asserted as verified: Discourse then mails it itself.
    requireActivation: !verified,
  };
  return { termsAgreed: true, redirectUrl: answerUrl(request.returnSsoUrl, signAnswer(forum.secret, answerQuery(assertion))) };
}

/** Spec §7 `community/termsAgreed`: the account accepted the current community terms, recorded with the time and version. */
export async function agreeToTerms(deps: Deps, signedIn: () => Promise<ActiveSession>, meta: RequestMeta): Promise<void> {
  // Not configured is the answer whoever asks (decision 0021): before the session is looked at.
  forumOf(deps);
  const session = await signedIn();
  const version = deps.config.communityTermsVersion;
  await inTransaction(deps, async (uow) => {
    await insertTermsAgreement(uow.db, { user_id: session.userId, terms_version: version, agreed_at: uow.now });
    await recordAudit(uow, { type: 'community.termsAgreed', meta, userId: session.userId, detail: { termsVersion: version } });
  });
}
