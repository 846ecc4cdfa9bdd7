import { API_BASE, CALLS, ERROR_STATUS, callErrors, type CallDefinition, type CallName } from '@foyer/contract';
import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { dbUnavailable, useTestApp } from '../../test/helpers.js';
import { callRoute } from './call-route.js';
import { registerErrorHandler } from './error-handler.js';
import { AppError } from './errors.js';
import { OPENAPI_PATH } from './openapi.js';

/** A bare instance with the zod compilers and the one error handler; its log lines are kept. */
function bareApp() {
  const lines: Array<Record<string, unknown>> = [];
  const app = Fastify({
    logger: { level: 'error', stream: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) } },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  return { app, lines };
}

describe('a call declared once (decision 0017)', () => {
  it('answers 500 unexpectedError, and logs a bug, when a handler throws a code its call does not declare', async () => {
    const { app, lines } = bareApp();
    callRoute(app, 'signout', {
      summary: 'test',
      handler: async () => {
        // signout declares no refusal of its own: accountLocked is a code it must never answer.
        throw new AppError('accountLocked');
      },
    });
    const response = await app.inject({ method: 'POST', url: API_BASE + CALLS.signout.path, payload: {} });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ errorMessage: 'unexpectedError' });
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'error code not declared by the call', call: 'signout', code: 'accountLocked' }));
    await app.close();
  });

  it('passes a declared code through with its status', async () => {
    const { app } = bareApp();
    callRoute(app, 'session', {
      summary: 'test',
      handler: async () => {
        throw new AppError('notSignedIn');
      },
    });
    const response = await app.inject({ method: 'GET', url: API_BASE + CALLS.session.path });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ errorMessage: 'notSignedIn' });
    await app.close();
  });

  it('refuses to register rate limits on a call that does not declare rateLimitExeeded', () => {
    const { app } = bareApp();
    expect(() =>
      callRoute(app, 'signout', {
        summary: 'test',
        rateLimits: [{ rule: { name: 'test', limit: 1, windowMs: 1000 }, key: (request) => request.ip }],
        handler: async () => ({}),
      }),
    ).toThrow(/rateLimitExeeded/);
  });
});

interface Operation {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ in: string; name: string }>;
  responses: Record<string, { content?: { 'application/json'?: { schema?: { properties?: { errorMessage?: { enum?: string[] } } } } } }>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

/** `/account/setupAccount/fields/:id` as OpenAPI writes it. */
const openApiPath = (path: string) => API_BASE + path.replace(/:([A-Za-z]+)/g, '{$1}');

describe.skipIf(dbUnavailable)('every served call in the OpenAPI document', () => {
  const t = useTestApp();

  const served = () =>
    (Object.entries(CALLS) as Array<[CallName, CallDefinition]>).filter(([, call]) => t.app.hasRoute({ method: call.method, url: API_BASE + call.path }));

  it('names the call, declares every status its codes travel with, and each status carries exactly those codes', async () => {
    const document = (await t.app.inject({ method: 'GET', url: OPENAPI_PATH })).json<OpenApiDocument>();
    expect(served().length).toBeGreaterThanOrEqual(11);
    for (const [name, call] of served()) {
      const operation = document.paths[openApiPath(call.path)]?.[call.method.toLowerCase()];
      if (operation === undefined) throw new Error(`${name} is served but not in the document`);
      expect(operation.operationId, name).toBe(name);
      expect(operation.responses['200'], name).toBeDefined();
      for (const code of callErrors(call)) {
        const codes = operation.responses[String(ERROR_STATUS[code])]?.content?.['application/json']?.schema?.properties?.errorMessage?.enum;
        expect(codes, `${name} ${code}`).toContain(code);
      }
      // A write needs the XSRF pair (spec §7); a read does not. A call that needs a session takes
      // it from the session cookie or a bearer token: two alternatives.
      const needsSession = callErrors(call).includes('notSignedIn');
      const alternatives = (operation.security ?? []).map((requirement) => Object.keys(requirement).sort().join(' '));
      const xsrf = call.method === 'GET' ? [] : ['xsrfCookie', 'xsrfHeader'];
      const expected = needsSession
        ? [
            [...xsrf, 'sessionCookie'],
            [...xsrf, 'sessionBearer'],
          ]
        : call.method === 'GET'
          ? []
          : [xsrf];
      expect(alternatives, name).toEqual(expected.map((keys) => [...keys].sort().join(' ')));
      const deviceHeader = operation.parameters?.some((parameter) => parameter.in === 'header' && parameter.name === 'x-deviceid') ?? false;
      expect(deviceHeader, name).toBe(call.deviceIdHeader === true);
    }
  });

  it('documents nothing under the API base that is not a contract call', async () => {
    const document = (await t.app.inject({ method: 'GET', url: OPENAPI_PATH })).json<OpenApiDocument>();
    const calls = new Set(served().map(([, call]) => `${call.method.toLowerCase()} ${openApiPath(call.path)}`));
    const documented = Object.entries(document.paths)
      .filter(([path]) => path.startsWith(`${API_BASE}/`))
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method} ${path}`));
    expect(documented.filter((entry) => !calls.has(entry))).toEqual([]);
  });
});
