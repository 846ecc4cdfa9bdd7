import { describe, expect, it } from 'vitest';
import { answerQuery, answerUrl, readRequest, signAnswer, signPayload, verifySignature } from './discourse-connect.js';

// Discourse's own documentation (meta.discourse.org, "DiscourseConnect - Official Single-Sign-On
// for Discourse"): the public example secret, request and answer.
const SECRET = 'd836444a9e4084d5b224a60c208dce14';
const INCOMING = 'bm9uY2U9Y2I2ODI1MWVlZmI1MjExZTU4YzAwZmYxMzk1ZjBjMGI=\n';
const INCOMING_SIG = '2828aa29899722b35a2f191d34ef9b3ce695e0e6eeec47deb46d588d70c7cb56';
const RAW_ANSWER = 'nonce=cb68251eefb5211e58c00ff1395f0c0b&name=sam&username=samsam&email=test%40test.com&external_id=hello123&require_activation=true';
const ANSWER_SIG = '3d7e5ac755a87ae3ccf90272644ed2207984db03cf020377c8b92ff51be3abc3';

describe('DiscourseConnect (Discourse’s public vectors)', () => {
  it('verifies the incoming example exactly as received, the trailing line feed included', () => {
    expect(decodeURIComponent('bm9uY2U9Y2I2ODI1MWVlZmI1MjExZTU4YzAwZmYxMzk1ZjBjMGI%3D%0A')).toBe(INCOMING);
    expect(signPayload(SECRET, INCOMING)).toBe(INCOMING_SIG);
    expect(verifySignature(SECRET, INCOMING, INCOMING_SIG)).toBe(true);
    expect(Buffer.from(INCOMING, 'base64').toString('utf8')).toBe('nonce=cb68251eefb5211e58c00ff1395f0c0b');
  });

  it('refuses the same payload without its line feed under that signature', () => {
    expect(verifySignature(SECRET, INCOMING.trimEnd(), INCOMING_SIG)).toBe(false);
  });

  it('signs the documented answer to the documented signature', () => {
    const answer = answerQuery({
      nonce: 'cb68251eefb5211e58c00ff1395f0c0b',
      name: 'sam',
      username: 'samsam',
      email: 'test@test.com',
      externalId: 'hello123',
      requireActivation: true,
    });
    expect(answer).toBe(RAW_ANSWER);
    const signed = signAnswer(SECRET, answer);
    expect(signed.sso).not.toMatch(/\n/);
    expect(Buffer.from(signed.sso, 'base64').toString('utf8')).toBe(RAW_ANSWER);
    expect(signed.sig).toBe(ANSWER_SIG);
  });

  it('reads nonce and return_sso_url, and refuses a wrong secret, a tampered payload and foreign characters', () => {
    const payload = Buffer.from('nonce=abc&return_sso_url=https%3A%2F%2Fforum.example.com%2Fsession%2Fsso_login').toString('base64');
    const sig = signPayload(SECRET, payload);
    expect(readRequest(SECRET, payload, sig)).toEqual({ nonce: 'abc', returnSsoUrl: 'https://forum.example.com/session/sso_login' });
    expect(readRequest('another-secret-entirely', payload, sig)).toEqual({ refused: 'signature' });
    const tampered = Buffer.from('nonce=abd&return_sso_url=https%3A%2F%2Fforum.example.com%2Fsession%2Fsso_login').toString('base64');
    expect(readRequest(SECRET, tampered, sig)).toEqual({ refused: 'signature' });
    // Discourse itself refuses anything outside base64's alphabet and line breaks, signed or not.
    const foreign = `${payload}!`;
    expect(readRequest(SECRET, foreign, signPayload(SECRET, foreign))).toEqual({ refused: 'signature' });
    expect(readRequest(SECRET, payload, sig.toUpperCase())).toEqual({ refused: 'signature' });
    // Signed with the forum's secret, but without a nonce or a return address: not a forged signature.
    for (const fields of ['return_sso_url=https%3A%2F%2Fforum.example.com%2F', 'nonce=abc', 'nonce=&return_sso_url=x']) {
      const unfinished = Buffer.from(fields).toString('base64');
      expect(readRequest(SECRET, unfinished, signPayload(SECRET, unfinished))).toEqual({ refused: 'malformed' });
    }
  });

  it('appends the answer to the return address as Discourse’s to_url does', () => {
    expect(answerUrl('https://forum.example.com/session/sso_login', { sso: 'YQ==', sig: 'ff' })).toBe(
      'https://forum.example.com/session/sso_login?sso=YQ%3D%3D&sig=ff',
    );
    expect(answerUrl('https://forum.example.com/login?a=1', { sso: 'YQ==', sig: 'ff' })).toBe('https://forum.example.com/login?a=1&sso=YQ%3D%3D&sig=ff');
  });

  it('keeps a fragment of the return address last, where it does not swallow the answer', () => {
    expect(answerUrl('https://forum.example.com/session/sso_login#top', { sso: 'YQ==', sig: 'ff' })).toBe(
      'https://forum.example.com/session/sso_login?sso=YQ%3D%3D&sig=ff#top',
    );
    expect(answerUrl('https://forum.example.com/login?a=1#x?y', { sso: 'YQ==', sig: 'ff' })).toBe(
      'https://forum.example.com/login?a=1&sso=YQ%3D%3D&sig=ff#x?y',
    );
  });
});
