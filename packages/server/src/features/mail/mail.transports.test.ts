import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SmtpCapture } from '../../../test/smtp-capture.js';
import { smtpNeedsTls, smtpTransport } from './mail.transports.js';

/** ASVS V12.3.1: a deployed service never hands a reset link or its relay's password over plain SMTP. */
describe('SMTP and TLS', () => {
  it('requires STARTTLS for smtp:// to another host once deployed; never for smtps://, loopback relays, local or test', () => {
    expect(smtpNeedsTls('smtp://mailer:secret@mail.example.com:587', true)).toBe(true);
    expect(smtpNeedsTls('smtp://10.0.0.5:25', true)).toBe(true);
    expect(smtpNeedsTls('smtps://mailer:secret@mail.example.com:465', true)).toBe(false);
    for (const host of ['127.0.0.1', 'localhost', '[::1]']) expect(smtpNeedsTls(`smtp://${host}:25`, true), host).toBe(false);
    expect(smtpNeedsTls('smtp://mail.example.com:587', false)).toBe(false);
  });

  describe('against a relay that offers no STARTTLS', () => {
    const relay = new SmtpCapture();
    beforeAll(async () => relay.start());
    afterAll(async () => relay.stop());

    const mail = { id: 'm1', kind: 'passwordReset', to: 'ann@example.com', locale: 'en', subject: 'Reset', text: 'a link', html: '<p>a link</p>' };

    it('sends nothing when TLS is required, and delivers when it is not', async () => {
      const strict = smtpTransport({ url: relay.url, from: 'Foyer <no-reply@example.com>', requireTls: true });
      try {
        await expect(strict.send(mail)).rejects.toThrow(/STARTTLS/i);
        expect(relay.messages).toHaveLength(0);
      } finally {
        await strict.close();
      }
      const plain = smtpTransport({ url: relay.url, from: 'Foyer <no-reply@example.com>' });
      try {
        await plain.send(mail);
        expect(relay.messages).toHaveLength(1);
      } finally {
        await plain.close();
      }
    });
  });
});
