import { describe, expect, it } from 'vitest';
import { attributionFromQuery, hubspotToken, marketingTest, planIntent, signupSource } from './attribution';

describe('arrival details for sign-up and setup (spec §3, §7)', () => {
  it('renames the attribution parameters and leaves out empty ones', () => {
    const params = new URLSearchParams('utm_medium=cpc&utm_campaign=%20spring%20&utm_source=&utm_term=t&gclid=g&gaId=ga&other=x');
    expect(attributionFromQuery(params)).toEqual({ utmMedium: 'cpc', utmCampaign: 'spring', utmTerm: 't', gclid: 'g', gaId: 'ga' });
  });

  it('cuts an oversized value to the contract limit rather than losing the sign-up', () => {
    const params = new URLSearchParams({ utm_source: 'x'.repeat(600) });
    expect(attributionFromQuery(params).utmSource).toHaveLength(500);
  });

  it('takes only the known plan intents', () => {
    expect(planIntent(new URLSearchParams('plan=organization'))).toBe('organization');
    expect(planIntent(new URLSearchParams('plan=individual'))).toBe('individual');
    expect(planIntent(new URLSearchParams('plan=enterprise'))).toBeUndefined();
    expect(planIntent(new URLSearchParams(''))).toBeUndefined();
  });

  it('uses the given sign-up source, else the email one', () => {
    expect(signupSource(new URLSearchParams('signupSource=auth/sign-up/community'))).toBe('auth/sign-up/community');
    expect(signupSource(new URLSearchParams('signupSource=%20'))).toBe('auth/sign-up/email');
    expect(signupSource(new URLSearchParams({ signupSource: 'x'.repeat(101) }))).toBe('auth/sign-up/email');
    expect(signupSource(new URLSearchParams(''))).toBe('auth/sign-up/email');
    expect(signupSource(new URLSearchParams('signupSource=auth%0A/x'))).toBe('auth/sign-up/email');
  });

  it('leaves out a tracking value with a control character, which the service would refuse', () => {
    expect(attributionFromQuery(new URLSearchParams('utm_source=news%0Aletter&utm_medium=email&gclid=a%00b'))).toEqual({ utmMedium: 'email' });
  });

  it('reads the marketing tracker cookie and the stored marketing-test flag', () => {
    expect(hubspotToken()).toBeUndefined();
    document.cookie = 'hubspotutk=abc%20123';
    expect(hubspotToken()).toBe('abc 123');

    expect(marketingTest()).toBeUndefined();
    localStorage.setItem('isMarketingTest', 'true');
    expect(marketingTest()).toBe(true);
    localStorage.setItem('isMarketingTest', 'false');
    expect(marketingTest()).toBe(false);
  });
});
