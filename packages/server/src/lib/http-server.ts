import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorBody } from '@foyer/contract';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from './error-handler.js';
import { REQUEST_ID_HEADER } from './logging.js';

/**
 * Above the 60 s idle timeout of common load balancers (AWS ALB, nginx), so the balancer, not
 * this server, closes an idle keep-alive connection and never sends on one closing under it.
 */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;
/** Headers are a few hundred bytes: ten seconds is generous even on a poor mobile link. */
const HEADERS_TIMEOUT_MS = 10_000;
/** A socket silent this long in any state (a client that stopped reading an answer) is closed. */
const CONNECTION_TIMEOUT_MS = KEEP_ALIVE_TIMEOUT_MS + 5000;

/**
 * Decision 0011: timeouts that close slow clients (slowloris: headers or a body a byte at a time)
 * and idle sockets, so they cannot hold connections until no other client gets one.
 */
export function httpServerOptions(config: Config) {
  const { requestTimeoutMs } = config.http;
  return {
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    connectionTimeout: Math.max(CONNECTION_TIMEOUT_MS, requestTimeoutMs),
    http: {
      // Without Host an HTTP/1.1 request gets an empty 400 from Node itself; refuseWithoutHost
      // answers it in the contract's shape instead.
      requireHostHeader: false,
      headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeoutMs),
      // Node looks for requests past their deadline this often (30 s by default, which would let a
      // slow body live half a minute past REQUEST_TIMEOUT_MS).
      connectionsCheckingInterval: Math.max(250, Math.min(1000, Math.floor(requestTimeoutMs / 4))),
    },
  };
}

/**
 * A cap below the process's open-files limit: past it new connections are closed at once rather
 * than failing with EMFILE, which would also starve the database pool and the mail worker.
 */
export function capConnections(app: FastifyInstance, config: Config): void {
  app.server.maxConnections = config.http.maxConnections;
}

/**
 * Answers one connection may owe at once. HTTP/1.1 lets a client send requests without reading the
 * answers (pipelining); Node parses them all and the server makes every answer, which waits in
 * memory until the client reads: a thousand requests for a large answer held more than 100 MB.
 * Browsers do not pipeline, and a client that does stays far below this; one beyond it ends the
 * connection (decision 0011).
 */
export const MAX_ANSWERS_OWED_PER_CONNECTION = 32;
const answersOwed = Symbol('foyer.answersOwed');
type CountedSocket = Socket & { [answersOwed]?: number };

export function limitPipelining(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    const socket = request.raw.socket as CountedSocket | null;
    if (socket === null) {
      done();
      return;
    }
    const owed = (socket[answersOwed] ?? 0) + 1;
    socket[answersOwed] = owed;
    if (owed <= MAX_ANSWERS_OWED_PER_CONNECTION) {
      done();
      return;
    }
    request.log.warn({ owed }, 'connection closed: it sent more requests than it read answers');
    socket.destroy();
    // Answered into the closed socket, so the request still ends its course (and its count).
    void reply.code(503).send({ errorMessage: 'unavailable' } satisfies ErrorBody);
  });
  app.addHook('onResponse', (request, _reply, done) => {
    const socket = request.raw.socket as CountedSocket | null;
    if (socket !== null) socket[answersOwed] = Math.max(0, (socket[answersOwed] ?? 1) - 1);
    done();
  });
}

const STOPPING_BODY = JSON.stringify({ errorMessage: 'unavailable' } satisfies ErrorBody);

/** How often a stopping service looks for connections that have become idle. */
const STOPPING_SWEEP_MS = 100;

/**
 * Decision 0011: a stopping service lets no keep-alive connection outlive its last answer. Node's
 * `close()` ends only the connections idle at that moment; one that carried a request in flight
 * would stay open after its answer until the client let go, holding the stop to its grace period
 * although nothing was left to do. So every answer sent while stopping says `Connection: close`
 * (RFC 9112 §9.6: the client sends nothing more on it, and the connection ends with the answer),
 * and a sweep closes the few that become idle otherwise (an answer whose headers left before the
 * stop). The sweep exists only while the service stops.
 *
 * A request that arrives on such a connection once the stop began is refused as any outage is
 * (decision 0011): 503 `unavailable`, `Retry-After`, its request id, not cached, so a client or
 * balancer retries it on another instance. (Fastify's own refusal, `return503OnClosing`, which
 * app.ts turns off, answered in its own shape without any of these.)
 */
export function closeConnectionsWhileStopping(app: FastifyInstance, securityHeaders: Readonly<Record<string, string>> = {}): void {
  let stopping = false;
  let sweep: NodeJS.Timeout | undefined;
  app.addHook('onRequest', async (request, reply) => {
    if (!stopping) return undefined;
    void reply
      .code(503)
      .headers(securityHeaders)
      .header('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS))
      .header('cache-control', 'no-store')
      .header(REQUEST_ID_HEADER, request.id)
      // Already text: no route's answer schema (a health answer's, say) is asked to fit it.
      .type('application/json; charset=utf-8');
    return reply.send(STOPPING_BODY);
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (stopping) void reply.header('connection', 'close');
    done(null, payload);
  });
  app.addHook('preClose', async () => {
    stopping = true;
    sweep = setInterval(() => app.server.closeIdleConnections(), STOPPING_SWEEP_MS).unref();
  });
  app.addHook('onClose', async () => {
    clearInterval(sweep);
  });
}

/**
 * What Node would answer itself, with an empty body and none of the headers every answer carries:
 * an HTTP/1.1 request without Host (RFC 9112 §3.2: 400) and an `Expect` other than 100-continue
 * (RFC 9110 §10.1.1: 417). Both get the contract's code-only shape, like the parser's refusals, and
 * the connection is closed: a body announced with an unmet expectation may still follow on it.
 */
export function refuseWhatNodeWouldAnswer(app: FastifyInstance, securityHeaders: Readonly<Record<string, string>>): void {
  app.addHook('onRequest', (request, reply, done) => {
    const { raw } = request;
    if (raw.httpVersionMajor === 1 && raw.httpVersionMinor >= 1 && raw.headers.host === undefined) {
      void reply
        .code(400)
        .headers(securityHeaders)
        .header('cache-control', 'no-store')
        .header('connection', 'close')
        .send({ errorMessage: 'invalidRequest' } satisfies ErrorBody);
      return;
    }
    done();
  });
  app.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const body = JSON.stringify({ errorMessage: 'invalidRequest' } satisfies ErrorBody);
    response.shouldKeepAlive = false;
    response.writeHead(417, {
      ...securityHeaders,
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
      connection: 'close',
    });
    response.end(body);
    request.resume();
  });
}

/** Node's HTTP parser codes that mean a request whose headers were too large. */
const HEADER_OVERFLOW = 'HPE_HEADER_OVERFLOW';
const REQUEST_TIMEOUT = 'ERR_HTTP_REQUEST_TIMEOUT';

/**
 * A request Node's HTTP parser refused before any route saw it (a raw byte Node does not allow in
 * the target or a header, both Content-Length and Transfer-Encoding, headers past the limit, a
 * request past its deadline): answered in the contract's code-only shape, like every other refusal,
 * and the connection closed, since what follows on it cannot be trusted to start a request.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket, securityHeaders: Readonly<Record<string, string>> = {}): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = error.code === HEADER_OVERFLOW ? 431 : error.code === REQUEST_TIMEOUT ? 408 : 400;
  const body = JSON.stringify({ errorMessage: 'invalidRequest' } satisfies ErrorBody);
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Cache-Control: no-store',
      ...Object.entries(securityHeaders).map(([name, value]) => `${name}: ${value}`),
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}
