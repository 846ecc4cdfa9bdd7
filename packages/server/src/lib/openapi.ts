import fastifySwagger from '@fastify/swagger';
import { API_BASE, COOKIE_BASE_NAMES, DEVICE_ID_HEADER, XSRF_HEADER } from '@foyer/contract';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

/** Where the service serves its OpenAPI document. */
export const OPENAPI_PATH = `${API_BASE}/openapi.json`;

/** The copy committed beside the server's package.json (`npm run openapi -w @foyer/server` writes it). */
export const OPENAPI_FILE = new URL('../../openapi.json', import.meta.url);

/**
 * Spec §7: a state-changing call sends the `XSRF-TOKEN` cookie's value back in the
 * `X-XSRF-TOKEN` header (lib/xsrf.ts). Both schemes in one requirement: the call needs both.
 */
export const XSRF_SECURITY = [{ xsrfHeader: [], xsrfCookie: [] }];

/**
 * A call that needs a session (it declares `notSignedIn`) takes it from the session cookie or from
 * `Authorization: Bearer` (spec §3, §7), with the `X-DeviceId` it was issued to. Either
 * alternative, each with the XSRF pair when the call changes state.
 */
export function sessionSecurity(stateChanging: boolean): Array<Record<string, string[]>> {
  const xsrf = stateChanging ? XSRF_SECURITY[0] : {};
  return [
    { ...xsrf, sessionCookie: [] },
    { ...xsrf, sessionBearer: [] },
  ];
}

/**
 * OpenAPI generated from the same zod schemas the routes validate with (STYLE.md: never by
 * hand). Nothing in it depends on the machine or the configuration (the server is the origin
 * that serves it), so the committed copy is the one every instance serves (decision 0017).
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'Foyer account service', version: '1' },
      servers: [{ url: '/', description: 'The origin that serves this document' }],
      tags: [
        { name: 'account', description: 'Sign-in, sign-up, setup, passwords and sessions (spec §7)' },
        { name: 'community', description: 'The forum sign-in (spec §7)' },
        { name: 'exchange', description: 'Token exchange for native apps (spec §7)' },
        { name: 'localisation', description: 'The dictionaries of the web app (spec §7)' },
        { name: 'flags', description: 'Feature flags over OFREP, the OpenFeature Remote Evaluation Protocol (decision 0024)' },
        { name: 'operations', description: 'For load balancers and monitors' },
      ],
      components: {
        securitySchemes: {
          xsrfHeader: {
            type: 'apiKey',
            in: 'header',
            name: XSRF_HEADER,
            description: `The value of the ${COOKIE_BASE_NAMES.xsrf} cookie; answered 403 xsrfMismatch when absent or different`,
          },
          xsrfCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: COOKIE_BASE_NAMES.xsrf,
            description: 'Set by the service on any answer under /api/ that finds none',
          },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: COOKIE_BASE_NAMES.otter,
            description: `The session cookie a sign-in sets (\`${COOKIE_BASE_NAMES.otter}\` in production, \`${COOKIE_BASE_NAMES.otter}_{env}\` elsewhere; spec §3), with the ${DEVICE_ID_HEADER} header of the device it was issued to; without that header, or with another device's id, the call answers 401 notSignedIn`,
          },
          sessionBearer: {
            type: 'http',
            scheme: 'bearer',
            description: `A session or device token (the \`otter\` a sign-in answered, or a device token), with the ${DEVICE_ID_HEADER} header of the device it was issued to; without that header, or with another device's id, the call answers 401 notSignedIn`,
          },
        },
      },
    },
    transform: jsonSchemaTransform,
  });
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
}

/** The document as committed: two-space JSON and a final newline. */
export function formatOpenApi(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
