import { greeting, type MailTemplate } from '../mail/mail.template.js';

/** Forgot password: the link opens /reset-password/:token (spec §2). */
export const passwordResetMail: MailTemplate<{ firstName: string | null; link: string; minutes: number }> = {
  kind: 'passwordReset',
  render: (t, data) => ({
    subject: t('mail.passwordReset.subject'),
    blocks: [
      greeting(t, data.firstName),
      { kind: 'text', text: t('mail.passwordReset.intro') },
      { kind: 'button', label: t('mail.passwordReset.action'), url: data.link },
      { kind: 'note', text: t('mail.passwordReset.expiry', { minutes: data.minutes }) },
      { kind: 'note', text: t('mail.passwordReset.notYou') },
    ],
  }),
};

/**
 * After a reset: the owner learns of it whoever made it, with a way back in should it not have
 * been them (the reset ended every session, so an intruder is signed out too).
 */
export const passwordChangedMail: MailTemplate<{ firstName: string | null; signInUrl: string; resetUrl: string }> = {
  kind: 'passwordChanged',
  render: (t, data) => ({
    subject: t('mail.passwordChanged.subject'),
    blocks: [
      greeting(t, data.firstName),
      { kind: 'text', text: t('mail.passwordChanged.intro') },
      { kind: 'text', text: t('mail.passwordChanged.sessions') },
      { kind: 'button', label: t('mail.passwordChanged.signIn'), url: data.signInUrl },
      { kind: 'note', text: t('mail.passwordChanged.notYou') },
      { kind: 'button', label: t('mail.passwordChanged.reset'), url: data.resetUrl },
    ],
  }),
};
