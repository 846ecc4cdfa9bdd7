import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A flag service speaking the OpenFeature Remote Evaluation Protocol (OFREP v1, the protocol
 * repository's service/openapi.yaml), as flagd, GO Feature Flag or Flipt serve it: flags kept
 * the way flagd's flag files keep them (variants and a default variant), changed while it runs.
 *
 * - `POST /ofrep/v1/evaluate/flags/{key}`: 200 `{ key, value, reason, variant, metadata }`;
 *   404 `{ key, errorCode: FLAG_NOT_FOUND }`; 400 `{ key, errorCode: PARSE_ERROR | INVALID_CONTEXT }`.
 * - `POST /ofrep/v1/evaluate/flags`: 200 `{ flags: [...] }` with an ETag; 304 when If-None-Match
 *   holds it; 400 `{ errorCode }`.
 * - With a token: 401 without `Authorization`, 403 with another token.
 * - Failures on demand: 429 with Retry-After, 500 `{ errorDetails }`, or no answer at all.
 *
 * flagd itself is a Go binary that cannot be installed here; this plays its OFREP side.
 */

export type FlagValue = boolean | number | string;

export interface FlagDefinition {
  variants: Record<string, FlagValue>;
  defaultVariant: string;
}

export type Failure = { status: 429; retryAfter: string } | { status: 500 } | { status: 'hang' };

export interface OfrepRequest {
  path: string;
  /** The flag of a single evaluation; undefined for the bulk one. */
  key: string | undefined;
  headers: IncomingMessage['headers'];
  body: unknown;
}

const BULK = '/ofrep/v1/evaluate/flags';

/** A flag that is simply on or off, flagd-style. */
export function toggle(on: boolean): FlagDefinition {
  return { variants: { on: true, off: false }, defaultVariant: on ? 'on' : 'off' };
}

export class OfrepServer {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly flags = new Map<string, FlagDefinition>();
  private failure: Failure | undefined;
  /** Every request received, in order. */
  readonly requests: OfrepRequest[] = [];
  url = '';

  constructor(
    flags: Record<string, FlagDefinition> = {},
    private readonly token?: string,
  ) {
    for (const [key, flag] of Object.entries(flags)) this.flags.set(key, flag);
    this.server = createServer((request, response) => void this.handle(request, response));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Changes (or adds) a flag, as an operator does in the flag service's UI or file. */
  set(key: string, flag: FlagDefinition): void {
    this.flags.set(key, flag);
  }

  remove(key: string): void {
    this.flags.delete(key);
  }

  /** Every later request fails so, until `recover()`. */
  fail(failure: Failure): void {
    this.failure = failure;
  }

  recover(): void {
    this.failure = undefined;
  }

  /** Requests for single evaluations of one flag. */
  evaluationsOf(key: string): number {
    return this.requests.filter((request) => request.key === key).length;
  }

  private evaluate(key: string, flag: FlagDefinition) {
    return { key, value: flag.variants[flag.defaultVariant], reason: 'STATIC', variant: flag.defaultVariant, metadata: {} };
  }

  private bulk() {
    const flags = [...this.flags].map(([key, flag]) => this.evaluate(key, flag));
    const etag = `"${createHash('sha256').update(JSON.stringify(flags)).digest('hex').slice(0, 16)}"`;
    return { flags, etag };
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://flags').pathname;
    const key = path.startsWith(`${BULK}/`) ? decodeURIComponent(path.slice(BULK.length + 1)) : undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    let parsed = true;
    try {
      body = text === '' ? {} : JSON.parse(text);
    } catch {
      parsed = false;
    }
    this.requests.push({ path, key, headers: request.headers, body });

    const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
    };

    if (request.method !== 'POST' || (path !== BULK && key === undefined)) return json(404, { errorDetails: 'not found' });
    if (this.token !== undefined) {
      const authorization = request.headers.authorization;
      if (authorization === undefined) return void response.writeHead(401).end();
      if (authorization !== `Bearer ${this.token}`) return void response.writeHead(403).end();
    }
    if (this.failure?.status === 'hang') return; // the socket stays open, unanswered, until stop()
    if (this.failure?.status === 429) return void response.writeHead(429, { 'retry-after': this.failure.retryAfter }).end();
    if (this.failure?.status === 500) return json(500, { errorDetails: 'the flag store is unavailable' });

    const context = typeof body === 'object' && body !== null ? (body as { context?: unknown }).context : undefined;
    const failure =
      !parsed || typeof body !== 'object' || body === null || Array.isArray(body)
        ? 'PARSE_ERROR'
        : context !== undefined && (typeof context !== 'object' || context === null)
          ? 'INVALID_CONTEXT'
          : undefined;

    if (key === undefined) {
      if (failure !== undefined) return json(400, { errorCode: failure, errorDetails: 'bad evaluation request' });
      const { flags, etag } = this.bulk();
      if (request.headers['if-none-match'] === etag) return void response.writeHead(304, { etag }).end();
      return json(200, { flags }, { etag });
    }
    if (failure !== undefined) return json(400, { key, errorCode: failure, errorDetails: 'bad evaluation request' });
    const flag = this.flags.get(key);
    if (flag === undefined) return json(404, { key, errorCode: 'FLAG_NOT_FOUND', errorDetails: `flag ${key} was not found` });
    return json(200, this.evaluate(key, flag));
  }
}
