// A person's browser at the Google provider (bench/peer/google-provider.mjs): it opens the consent
// address Foyer answered to `account/socialAuth`, signs in there the first time (afterwards the
// provider's session and grant answer at once), and is sent back to Foyer's callback address with
// a code and the state, which are read from that address rather than followed (as test/google.ts
// does). Over https, trusting the provider's throwaway certificate only.
import { Agent, request } from 'node:https';

/** One person's cookies at the provider (its session, interaction and resume cookies). */
class Jar {
  cookies = new Map();
  header() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
  keep(lines = []) {
    for (const line of lines) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      if (at > 0) this.cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
  }
}

export class ProviderBrowser {
  /** @param {{ ca: string, redirectUri: string }} options the provider's certificate; Foyer's callback address */
  constructor({ ca, redirectUri }) {
    this.agent = new Agent({ keepAlive: true, ca });
    this.redirectUri = redirectUri;
    this.jars = new Map();
  }

  send(url, { method = 'GET', headers = {}, body } = {}) {
    return new Promise((resolve, reject) => {
      const outgoing = request(url, { method, headers, agent: this.agent, timeout: 10_000 }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode, headers: response.headers, text }));
      });
      outgoing.on('error', reject);
      outgoing.on('timeout', () => outgoing.destroy(new Error(`${url} did not answer within 10 s`)));
      outgoing.end(body);
    });
  }

  /** Consent for `email` at `consentUrl`: the code and state the provider sends Foyer's callback. */
  async authorize(consentUrl, email) {
    let jar = this.jars.get(email);
    if (!jar) this.jars.set(email, (jar = new Jar()));
    let url = consentUrl;
    let method = 'GET';
    let body;
    for (let hop = 0; hop < 8; hop++) {
      const headers = { cookie: jar.header(), ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) };
      const response = await this.send(url, { method, headers, body });
      jar.keep(response.headers['set-cookie']);
      const location = response.headers.location;
      if (!location) throw new Error(`the Google provider answered ${response.status} at ${url}: ${response.text.slice(0, 300)}`);
      const next = new URL(location, url);
      if (next.href.startsWith(this.redirectUri)) {
        const code = next.searchParams.get('code');
        if (!code) throw new Error(`the Google provider sent back ${next.search.slice(0, 300)}`);
        return { code, state: next.searchParams.get('state') };
      }
      // The provider's sign-in: the person's email, posted as its form would post it.
      const signIn = /^\/interaction\/[^/]+$/.test(next.pathname);
      url = signIn ? `${next.href}/login` : next.href;
      method = signIn ? 'POST' : 'GET';
      body = signIn ? new URLSearchParams({ email }).toString() : undefined;
    }
    throw new Error('too many redirects at the Google provider');
  }

  close() {
    this.agent.destroy();
  }
}
