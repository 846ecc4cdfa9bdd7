import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for the community forum, playing Discourse's side of DiscourseConnect the way
 * Discourse does it (lib/discourse_connect_base.rb, as packages/server/test/community.ts does for
 * the service tests): `/session/sso` makes a nonce, signs `nonce` and `return_sso_url` (base64
 * with Ruby's line feeds every 60 characters and at the end, all of them signed) and sends the
 * browser to Foyer; `/session/sso_login` checks the answer's HMAC-SHA256 over `sso` exactly as
 * received in constant time, decodes it, accepts each nonce once, and signs the person in.
 */

export interface ForumMember {
  nonce: string;
  email: string;
  externalId: string;
  username: string;
  name: string;
  requireActivation: string;
  /** Every field of the answer, for checks that nothing else (admin, groups) was sent. */
  fields: Record<string, string>;
}

export function sign(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('hex');
}

/** Ruby's Base64.encode64: a line feed after every 60 characters and at the end. */
function encode64(text: string): string {
  return `${Buffer.from(text)
    .toString('base64')
    .replace(/(.{60})/g, '$1\n')}\n`.replace(/\n\n$/, '\n');
}

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export class StandInForum {
  readonly members: ForumMember[] = [];
  /** Refusals, as Discourse would log them: a bad signature, an unknown or reused nonce. */
  readonly refusals: string[] = [];
  private readonly nonces = new Set<string>();
  private server: Server | undefined;
  url = '';

  constructor(
    private readonly secret: string,
    private readonly foyerUrl: () => string,
  ) {}

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', this.url);
      const html = (status: number, body: string) => response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body);
      if (url.pathname === '/session/sso') {
        const { location } = this.request();
        response.writeHead(302, { location }).end();
        return;
      }
      if (url.pathname === '/session/sso_login') {
        const member = this.login(url.searchParams.get('sso') ?? '', url.searchParams.get('sig') ?? '');
        if (member === undefined) html(403, page('Forum sign-in refused', `<p>${escapeHtml(this.refusals.at(-1) ?? '')}</p>`));
        else html(200, page('Foyer Community', `<p>Signed in to the forum as ${escapeHtml(member.email)}</p>`));
        return;
      }
      html(200, page('Foyer Community', '<p>Welcome to the forum.</p>'));
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://localhost:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** A fresh signed request: where Discourse sends the browser, and the raw payload and signature. */
  request(): { location: string; sso: string; sig: string; nonce: string } {
    const nonce = randomBytes(16).toString('hex');
    this.nonces.add(nonce);
    const sso = encode64(new URLSearchParams({ nonce, return_sso_url: `${this.url}/session/sso_login` }).toString());
    const sig = sign(this.secret, sso);
    const location = `${this.foyerUrl()}/discourse-sso?${new URLSearchParams({ sso, sig }).toString()}`;
    return { location, sso, sig, nonce };
  }

  private login(sso: string, sig: string): ForumMember | undefined {
    const expected = Buffer.from(sign(this.secret, sso));
    const given = Buffer.from(sig);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      this.refusals.push('bad signature');
      return undefined;
    }
    const fields = Object.fromEntries(new URLSearchParams(Buffer.from(sso, 'base64').toString('utf8')));
    const nonce = fields.nonce ?? '';
    if (!this.nonces.delete(nonce)) {
      this.refusals.push('unknown or reused nonce');
      return undefined;
    }
    const member: ForumMember = {
      nonce,
      email: fields.email ?? '',
      externalId: fields.external_id ?? '',
      username: fields.username ?? '',
      name: fields.name ?? '',
      requireActivation: fields.require_activation ?? '',
      fields,
    };
    this.members.push(member);
    return member;
  }
}
