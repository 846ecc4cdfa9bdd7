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
