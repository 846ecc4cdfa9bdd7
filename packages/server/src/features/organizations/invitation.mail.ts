import type { MailTemplate } from '../mail/mail.template.js';

/** An administrator added someone to an organisation: the link opens /setup-account/:token. */
export const invitationMail: MailTemplate<{ organization: string; link: string; days: number }> = {
  kind: 'invitation',
  render: (t, data) => ({
    subject: t('mail.invitation.subject', { organization: data.organization }),
    blocks: [
      { kind: 'text', text: t('mail.common.greetingNoName') },
      { kind: 'text', text: t('mail.invitation.intro', { organization: data.organization }) },
      { kind: 'button', label: t('mail.invitation.action'), url: data.link },
      { kind: 'note', text: t('mail.invitation.expiry', { days: data.days }) },
    ],
  }),
};

/**
 * An administrator added someone to an organisation that requires SSO (decision 0022): there is
 * no password to choose, so the link opens /sso-sign-in with the address filled in. It carries
 * no token: the organisation's provider vouches for the person, not the link.
 */
export const ssoInvitationMail: MailTemplate<{ organization: string; link: string }> = {
  kind: 'ssoInvitation',
  render: (t, data) => ({
    subject: t('mail.ssoInvitation.subject', { organization: data.organization }),
    blocks: [
      { kind: 'text', text: t('mail.common.greetingNoName') },
      { kind: 'text', text: t('mail.ssoInvitation.intro', { organization: data.organization }) },
      { kind: 'button', label: t('mail.ssoInvitation.action'), url: data.link },
      { kind: 'note', text: t('mail.ssoInvitation.note') },
    ],
  }),
};
