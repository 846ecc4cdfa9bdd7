import { randomBytes } from 'node:crypto';
import { request, type IncomingHttpHeaders } from 'node:http';
import { API_BASE, COOKIE_BASE_NAMES, DEVICE_ID_HEADER, XSRF_HEADER } from '@foyer/contract';

/** What the driver saw of one request. */
export interface Exchange {
  call: string;
  /** performance.now() when sent and when answered (or failed). */
  startedAt: number;
  endedAt: number;
  /** The HTTP status, or 0 when no answer came at all. */
  status: number;
  /** HAProxy's X-Served-By: which instance answered (or failed to). */
  servedBy: string | undefined;
  body: unknown;
}

interface Send {
  port: number;
  method: 'GET' | 'POST';
  path: string;
  body?: object;
  headers?: Record<string, string>;
  /** The client's own source address (127.x.y.z), so each person is its own client to the limits. */
  localAddress?: string;
}

const TIMEOUT_MS = 15_000;

/** One request on its own connection: a killed instance cannot leave a pooled socket behind. */
export function send(options: Send): Promise<{ status: number; headers: IncomingHttpHeaders; body: unknown }> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: options.port,
        method: options.method,
        path: options.path,
        agent: false,
        timeout: TIMEOUT_MS,
        ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
        headers: { ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          if ((response.headers['content-type'] ?? '').includes('json')) {
            try {
              body = JSON.parse(text);
            } catch {
              // kept as text
            }
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** A person at their own address, with the device id and session the web app would keep. */
export interface Person {
  email: string;
  hashPassword: string;
  deviceId: string;
  address: string;
  otter?: string;
}

/**
 * Loopback addresses from a random point of 127.16.0.0/12 on: each person a distinct client to
 * the per-address limits, whose counters in the shared Redis outlive a run by an hour.
 */
let nextAddress = randomBytes(3).readUIntBE(0, 3) & 0x0f_ff_00;

export function newPerson(label: string, hashPassword: string): Person {
  nextAddress = (nextAddress + 1) & 0x0f_ff_ff;
  // Host parts ending in 0 or 255 are skipped: some tools read them as network or broadcast.
  if ((nextAddress & 0xff) === 0 || (nextAddress & 0xff) === 0xff) return newPerson(label, hashPassword);
  const n = nextAddress | 0x10_00_00;
  return {
    email: `${label}-${randomBytes(5).toString('hex')}@example.com`,
    hashPassword,
    deviceId: randomBytes(9).toString('base64url'),
    address: `127.${n >> 16}.${(n >> 8) & 0xff}.${n & 0xff}`,
  };
}

/** A call as the web app makes it (spec §7: JSON, the XSRF pair, X-DeviceId), recorded. */
export async function call(
  port: number,
  person: Person,
  method: 'GET' | 'POST',
  path: string,
  options: { body?: object; sessionCookie?: string; log?: Exchange[] } = {},
): Promise<Exchange> {
  const xsrf = randomBytes(32).toString('base64url');
  const cookies = [
    `${COOKIE_BASE_NAMES.xsrf}=${xsrf}`,
    ...(options.sessionCookie !== undefined && person.otter !== undefined ? [`${options.sessionCookie}=${person.otter}`] : []),
  ];
  const startedAt = performance.now();
  let exchange: Exchange;
  try {
    const answer = await send({
      port,
      method,
      path: API_BASE + path,
      localAddress: person.address,
      headers: { cookie: cookies.join('; '), [XSRF_HEADER]: xsrf, [DEVICE_ID_HEADER]: person.deviceId },
      ...(options.body === undefined ? {} : { body: options.body }),
    });
    const servedBy = answer.headers['x-served-by'];
    exchange = {
      call: path,
      startedAt,
      endedAt: performance.now(),
      status: answer.status,
      servedBy: typeof servedBy === 'string' ? servedBy : undefined,
      body: answer.body,
    };
  } catch (error) {
    exchange = {
      call: path,
      startedAt,
      endedAt: performance.now(),
      status: 0,
      servedBy: undefined,
      body: error instanceof Error ? error.message : String(error),
    };
  }
  options.log?.push(exchange);
  return exchange;
}
