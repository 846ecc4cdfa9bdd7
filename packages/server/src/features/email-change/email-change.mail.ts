import { greeting, type MailTemplate } from '../mail/mail.template.js';

/** To the new address: the link opens /verify-new-email/:token (spec §2, decision 0023). */
export const emailChangeMail: MailTemplate<{ firstName: string | null; link: string; hours: number }> = {
  kind: 'emailChange',
  render: (t, data) => ({
    subject: t('mail.emailChange.subject'),
    blocks: [
      greeting(t, data.firstName),
      { kind: 'text', text: t('mail.emailChange.intro') },
      { kind: 'button', label: t('mail.emailChange.action'), url: data.link },
      { kind: 'note', text: t('mail.emailChange.expiry', { hours: data.hours }) },
      { kind: 'note', text: t('mail.emailChange.notYou') },
    ],
  }),
};

/**
 * To the current address (ASVS V6.3.7): the owner learns that someone who knew the password asked
 * to move the account, with a way to take it back should it not have been them.
 */
export const emailChangeNoticeMail: MailTemplate<{ firstName: string | null; newEmail: string; resetUrl: string }> = {
  kind: 'emailChangeNotice',
  render: (t, data) => ({
    subject: t('mail.emailChangeNotice.subject'),
    blocks: [
      greeting(t, data.firstName),
      { kind: 'text', text: t('mail.emailChangeNotice.intro', { newEmail: data.newEmail }) },
      { kind: 'text', text: t('mail.emailChangeNotice.unchanged') },
      { kind: 'note', text: t('mail.emailChangeNotice.notYou') },
      { kind: 'button', label: t('mail.emailChangeNotice.reset'), url: data.resetUrl },
    ],
  }),
};
