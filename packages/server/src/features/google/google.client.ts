import { ROUTES, isValidEmail } from '@foyer/contract';
import type { FastifyBaseLogger } from 'fastify';
import * as oidc from 'openid-client';
import { pkceChallenge } from '../../lib/crypto.js';
import { AppError } from '../../lib/errors.js';
import { assertedName, usableSubject } from '../../lib/provider-claims.js';
import { providerFetch } from './provider-fetch.js';

/** What the account rules need from a validated sign-in (decision 0019). */
/** What a provider's ID token (or userinfo) asserted; `email` is undefined when it named no valid one. */
export interface ProviderIdentity {
  issuer: string;
  subject: string;
  email: string | undefined;
  /**
   * The provider's `email_verified`: true only for boolean true or the text "true"; undefined when
   * it sent no such claim (Entra ID sends none); false for anything else (false, "false", 1, null).
   */
  emailVerified: boolean | undefined;
  givenName?: string;
  familyName?: string;
}

/** A Google sign-in needs the email: it is how an account is found or made (decision 0019). */
export interface GoogleIdentity extends ProviderIdentity {
  email: string;
}

export interface GoogleClientSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** `<PUBLIC_URL>/social-auth-callback`: where the provider sends the browser back. */
  redirectUri: string;
  /** Plain-http issuers are allowed only for a developer's machine and tests (config.ts). */
  allowHttp: boolean;
  /** The request deadline (REQUEST_TIMEOUT_MS): every call to the provider ends well within it. */
  requestTimeoutMs: number;
}

/** The scopes of spec §7's consent page. */
export const GOOGLE_SCOPES = 'openid email profile';
/** Discovery is fetched again after a day (keys are refetched by the client when one is unknown). */
const DISCOVERY_TTL_MS = 24 * 60 * 60 * 1000;
/** After a failed discovery the next request tries again, but not more often than this. */
const DISCOVERY_RETRY_MS = 5_000;
/** An ID token issued further in the future than this (clocks disagree a little, not by hours) is refused. */
const ISSUED_AT_SKEW_MS = 5 * 60 * 1000;
/**
 * Seconds a call to the provider may take: 10, or two thirds of a shorter request deadline, so
 * the person hears that the provider did not answer before their own request times out
 * (decision 0011).
 */
export function providerTimeoutS(requestTimeoutMs: number): number {
  return Math.max(1, Math.min(10, Math.floor((requestTimeoutMs * 2) / 3 / 1000)));
}

export function googleRedirectUri(publicUrl: string): string {
  return `${publicUrl}${ROUTES.socialAuthCallback}`;
}

function asText(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

const PROVIDER_DOWN_CODES = new Set(['OAUTH_RESPONSE_IS_NOT_CONFORM', 'OAUTH_RESPONSE_IS_NOT_JSON', 'OAUTH_TIMEOUT', 'OAUTH_ABORT']);

/** A failure of the provider itself (down, slow, answering garbage): 503, not the person's fault. */
function providerDown(error: unknown): boolean {
  // 429: the provider is throttling this client; the code was not refused.
  if (error instanceof oidc.ResponseBodyError) return error.status >= 500 || error.status === 429;
  // OAUTH_TIMEOUT and OAUTH_ABORT: openid-client's wrapping of the call's own time-out.
  if (error instanceof oidc.ClientError) return error.code !== undefined && PROVIDER_DOWN_CODES.has(error.code);
  if (error instanceof TypeError) return true; // fetch failed: connection refused, DNS, TLS
  return error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

/**
 * What discovery found. `responseIssuer`: the issuer, when it sends RFC 9207's `iss` with each
 * answer; read once here, as `serverMetadata()` copies the whole document on every call.
 */
interface Discovered {
  configuration: oidc.Configuration;
  responseIssuer: string | undefined;
}

/**
 * A confidential OpenID Connect client (openid-client 6) of one issuer: discovery, authorization
 * code with PKCE (S256), `state` and `nonce`, and the ID token validated in full: its signature
 * against the issuer's published keys (enableNonRepudiationChecks), `iss`, `aud`, `azp`, `exp`,
 * `iat` and `nonce`.
 */
export class GoogleClient {
  private discovered: { value: Discovered; at: number } | undefined;
  private pending: Promise<Discovered> | undefined;
  private failedAt = Number.NEGATIVE_INFINITY;
  /** An ID token named a key the cached set lacks (`forgetKeys`). */
  private keysMissed = false;
  /** Every call to the provider: discovery, keys, the code exchange, userinfo. */
  private readonly fetch = providerFetch();

  constructor(
    private readonly settings: GoogleClientSettings,
    private readonly log: FastifyBaseLogger,
    private readonly now: () => number = Date.now,
  ) {}

  get issuer(): string {
    return this.settings.issuer;
  }

  /**
   * The discovered configuration, fetched once and shared by concurrent requests. A failure
   * answers `unavailable` (503) and is tried again on a later request, at most every
   * DISCOVERY_RETRY_MS; the process keeps running. After an ID token named a key the cached set
   * lacks (`forgetKeys`), the configuration is discovered afresh; while that fails, the one in
   * hand goes on serving.
   */
  private async configuration(): Promise<Discovered> {
    const now = this.now();
    const current = this.discovered !== undefined && now - this.discovered.at < DISCOVERY_TTL_MS ? this.discovered : undefined;
    const retryDue = now - this.failedAt >= DISCOVERY_RETRY_MS;
    if (current !== undefined && !(this.keysMissed && now - current.at >= DISCOVERY_RETRY_MS && retryDue)) return current.value;
    if (this.pending !== undefined) return this.pending;
    if (current === undefined && !retryDue) throw new AppError('unavailable');
    // Every caller waiting on it gets the same answer: the configuration, or `unavailable`.
    this.pending = this.refresh(current?.value);
    try {
      return await this.pending;
    } finally {
      this.pending = undefined;
    }
  }

  private async refresh(inHand: Discovered | undefined): Promise<Discovered> {
    try {
      const value = await this.discover();
      this.discovered = { value, at: this.now() };
      this.keysMissed = false;
      return value;
    } catch (error) {
      // When it failed, not when it began: a provider that hangs fails after the whole time-out.
      this.failedAt = this.now();
      this.log.warn({ err: error, issuer: this.settings.issuer }, 'Google sign-in: OpenID discovery failed; will retry');
      if (inHand !== undefined) return inHand;
      throw new AppError('unavailable', { cause: error });
    }
  }

  private async discover(): Promise<Discovered> {
    const { issuer, clientId, clientSecret, allowHttp } = this.settings;
    const options: oidc.DiscoveryRequestOptions = {
      timeout: providerTimeoutS(this.settings.requestTimeoutMs),
      [oidc.customFetch]: this.fetch,
      ...(allowHttp ? { execute: [oidc.allowInsecureRequests] } : {}),
    };
    // Metadata first, to pick how the client authenticates: client_secret_basic is the default
    // of OpenID Connect registration, so it is used unless the issuer offers only the POST form.
    const probe = await oidc.discovery(new URL(issuer), clientId, undefined, oidc.None(), options);
    const metadata = probe.serverMetadata();
    const methods = metadata.token_endpoint_auth_methods_supported;
    const usePost = methods !== undefined && !methods.includes('client_secret_basic') && methods.includes('client_secret_post');
    const auth = usePost ? oidc.ClientSecretPost(clientSecret) : oidc.ClientSecretBasic(clientSecret);
    const configuration = new oidc.Configuration(metadata, clientId, { client_secret: clientSecret }, auth);
    if (allowHttp) oidc.allowInsecureRequests(configuration);
    configuration.timeout = providerTimeoutS(this.settings.requestTimeoutMs);
    configuration[oidc.customFetch] = this.fetch;
    // openid-client trusts an ID token read from the token endpoint over TLS without checking its
    // signature (OIDC Core 3.1.3.7 allows it); the signature is checked here all the same.
    oidc.enableNonRepudiationChecks(configuration);
    return { configuration, responseIssuer: metadata.authorization_response_iss_parameter_supported === true ? metadata.issuer : undefined };
  }

  /**
   * The ID token was signed with a key the cached key set lacks: the provider rotated its keys,
   * or answered a key set without them for a moment. The library fetches the set again for an
   * unknown key only once its copy is a minute old, so a later request discovers afresh (a new
   * configuration fetches the keys anew), once the discovery is DISCOVERY_RETRY_MS old.
   */
  private forgetKeys(): void {
    this.keysMissed = true;
  }

  /** Spec §7: the consent page, with scopes `openid email profile` and the code response type. */
  async authorizationUrl(input: { state: string; nonce: string; codeVerifier: string }): Promise<string> {
    const { configuration } = await this.configuration();
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: this.settings.redirectUri,
      response_type: 'code',
      scope: GOOGLE_SCOPES,
      state: input.state,
      nonce: input.nonce,
      code_challenge: pkceChallenge(input.codeVerifier),
      code_challenge_method: 'S256',
    });
    return url.href;
  }

  /**
   * Exchanges the code and validates the ID token; reads the userinfo endpoint when the ID token
   * leaves email out (issuers that follow OIDC Core 5.4 put scope claims there, Google does not).
   * A refused code or a token that fails a check answers `socialAuthFailed`; an unreachable
   * provider `unavailable`.
   */
  /** A validated token whose claims cannot be used: refused as a failed check is, with the reason for the log. */
  private refuse(reason: string): never {
    this.log.info({ reason }, 'Google sign-in refused');
    throw new AppError('socialAuthFailed', { cause: new Error(reason) });
  }

  /** The identity with its email, or the sign-in refused as one whose token names no valid email. */
  withEmail(identity: ProviderIdentity): GoogleIdentity {
    const { email } = identity;
    if (email === undefined) this.refuse('no valid email');
    return { ...identity, email };
  }

  async exchange(input: { code: string; state: string; codeVerifier: string; nonce: string }): Promise<ProviderIdentity> {
    const { configuration, responseIssuer } = await this.configuration();
    // The browser sends the code and state it was given (spec §7). RFC 9207's `iss` parameter
    // defends a client of several issuers against mix-up; this client has exactly one, so the
    // response is taken as coming from it.
    const callback = new URL(this.settings.redirectUri);
    callback.searchParams.set('code', input.code);
    callback.searchParams.set('state', input.state);
    if (responseIssuer !== undefined) callback.searchParams.set('iss', responseIssuer);
    try {
      const tokens = await oidc.authorizationCodeGrant(configuration, callback, {
        pkceCodeVerifier: input.codeVerifier,
        expectedState: input.state,
        expectedNonce: input.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (claims === undefined) throw new AppError('socialAuthFailed');
      const subject = usableSubject(claims.sub);
      if (subject === undefined) this.refuse('the ID token names no usable subject');
      // OIDC Core 3.1.3.7: an `azp` must be this client (the library checks it only beside several audiences).
      if (claims.azp !== undefined && claims.azp !== this.settings.clientId) this.refuse('the ID token was issued to another party (azp)');
      if (claims.iat * 1000 > Date.now() + ISSUED_AT_SKEW_MS) this.refuse('the ID token was issued in the future (iat)');
      // The email and whether it is verified come from one place: the ID token, or else userinfo.
      // Mixed, the token's `email_verified` would vouch for an address it never named.
      const userinfo = asText(claims.email) === undefined ? await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub) : undefined;
      const source: Record<string, unknown> = userinfo ?? claims;
      const asserted = asText(source.email);
      const email = asserted !== undefined && isValidEmail(asserted) ? asserted : undefined;
      const givenName = assertedName(claims.given_name) ?? assertedName(userinfo?.given_name);
      const familyName = assertedName(claims.family_name) ?? assertedName(userinfo?.family_name);
      return {
        issuer: claims.iss,
        subject,
        email,
        emailVerified: source.email_verified === undefined ? undefined : source.email_verified === true || source.email_verified === 'true',
        ...(givenName === undefined ? {} : { givenName }),
        ...(familyName === undefined ? {} : { familyName }),
      };
    } catch (error) {
      if (error instanceof AppError) throw error;
      if (error instanceof oidc.ClientError && error.code === 'OAUTH_KEY_SELECTION_FAILED') this.forgetKeys();
      if (providerDown(error)) {
        this.log.warn({ err: error }, 'Google sign-in: the provider did not answer');
        throw new AppError('unavailable', { cause: error });
      }
      // A replayed or foreign code, or an ID token with a wrong signature, issuer, audience,
      // nonce or time: refused, and said at info (it is what an attack looks like).
      const code = error instanceof oidc.ClientError ? error.code : error instanceof oidc.ResponseBodyError ? error.error : undefined;
      this.log.info({ reason: code, message: error instanceof Error ? error.message : String(error) }, 'Google sign-in refused');
      throw new AppError('socialAuthFailed', { cause: error });
    }
  }
}
