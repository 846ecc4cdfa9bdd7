import type { MailTemplate } from '../mail/mail.template.js';
import { greeting } from '../mail/mail.template.js';

/**
 * Sign-up's confirmation: the link opens /verify-email/:token (spec §2). It greets without a name:
 * the names were typed by whoever signed up, who may not own the mailbox, and no stranger's words
 * ("your account is on hold, confirm at …") may arrive in Foyer's own mail.
 */
export const verifyEmailMail: MailTemplate<{ link: string; hours: number }> = {
  kind: 'verifyEmail',
  render: (t, data) => ({
    subject: t('mail.verifyEmail.subject'),
    blocks: [
      greeting(t, null),
      { kind: 'text', text: t('mail.verifyEmail.intro') },
      { kind: 'button', label: t('mail.verifyEmail.action'), url: data.link },
      { kind: 'note', text: t('mail.verifyEmail.expiry', { hours: data.hours }) },
      { kind: 'note', text: t('mail.verifyEmail.notYou') },
    ],
  }),
};

/**
 * Sent instead of a verification when someone signs up with an email that already has an
 * account: the owner learns of it, and the answer to the sign-up stays the same (no enumeration).
 */
export const signupAttemptMail: MailTemplate<{ firstName: string | null; signInUrl: string; resetUrl: string }> = {
  kind: 'signupAttempt',
  render: (t, data) => ({
    subject: t('mail.signupAttempt.subject'),
    blocks: [
      greeting(t, data.firstName),
      { kind: 'text', text: t('mail.signupAttempt.intro') },
      { kind: 'button', label: t('mail.signupAttempt.signIn'), url: data.signInUrl },
      { kind: 'text', text: t('mail.signupAttempt.resetHint') },
      { kind: 'button', label: t('mail.signupAttempt.reset'), url: data.resetUrl },
      { kind: 'note', text: t('mail.signupAttempt.notYou') },
    ],
  }),
};
