import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PROVIDER_ANSWER_MAX_BYTES, providerFetch } from './provider-fetch.js';

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

const servers: Server[] = [];

async function provider(handler: Handler): Promise<string> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handler(request, Buffer.concat(chunks).toString('utf8'), response));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe("the provider's HTTP calls (openid-client's fetch)", () => {
  it('posts the form with its length and type, and answers the status, headers and body as fetch would', async () => {
    let seen: { method?: string; type?: string; length?: string; authorization?: string; body?: string } = {};
    const origin = await provider((request, body, response) => {
      seen = {
        method: request.method,
        type: request.headers['content-type'],
        length: request.headers['content-length'],
        authorization: request.headers.authorization,
        body,
      };
      response.writeHead(400, { 'content-type': 'application/json', 'www-authenticate': 'Basic realm="token"' });
      response.end(JSON.stringify({ error: 'invalid_grant' }));
    });
    const form = new URLSearchParams({ grant_type: 'authorization_code', code: 'é code' });
    const answer = await providerFetch()(`${origin}/token`, {
      method: 'POST',
      body: form,
      headers: { accept: 'application/json', authorization: 'Basic abc' },
      redirect: 'manual',
    });
    expect(seen).toEqual({
      method: 'POST',
      type: 'application/x-www-form-urlencoded;charset=UTF-8',
      length: String(Buffer.byteLength(form.toString())),
      authorization: 'Basic abc',
      body: form.toString(),
    });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('www-authenticate')).toBe('Basic realm="token"');
    expect(await answer.json()).toEqual({ error: 'invalid_grant' });
  });

  it('keeps the connection for the next call', async () => {
    const ports = new Set<number>();
    const origin = await provider((request, _body, response) => {
      ports.add(request.socket.remotePort ?? 0);
      response.end('{}');
    });
    const fetch = providerFetch();
    for (let i = 0; i < 3; i++) {
      const answer = await fetch(`${origin}/jwks`, { method: 'GET', body: undefined, headers: {}, redirect: 'manual' });
      await answer.text();
    }
    expect(ports.size).toBe(1);
  });

  it('sends a call again on a new connection when the kept one was closed as it went out, once', async () => {
    // The provider's idle timeout, met at the worst moment: the kept connection is reset when the
    // second call arrives on it, before any answer. Raw TCP, so the test decides exactly when.
    const sockets: Socket[] = [];
    const tcp: TcpServer = createTcpServer((socket) => {
      sockets.push(socket);
      let requests = 0;
      socket.on('data', (data) => {
        if (!data.toString('latin1').includes('\r\n\r\n')) return;
        requests++;
        if (requests === 2) {
          socket.resetAndDestroy();
          return;
        }
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\n{}');
      });
    });
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    try {
      const origin = `http://127.0.0.1:${(tcp.address() as AddressInfo).port}`;
      const fetch = providerFetch();
      const first = await fetch(`${origin}/token`, { method: 'POST', body: 'a', headers: {}, redirect: 'manual' });
      expect(first.status).toBe(200);
      const second = await fetch(`${origin}/token`, { method: 'POST', body: 'b', headers: {}, redirect: 'manual' });
      expect(second.status).toBe(200);
      expect(sockets).toHaveLength(2);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => tcp.close(resolve));
    }
  });

  it('does not follow a redirect: the 302 itself is the answer', async () => {
    const paths: string[] = [];
    const origin = await provider((request, _body, response) => {
      paths.push(request.url ?? '');
      response.writeHead(302, { location: '/elsewhere' });
      response.end();
    });
    const answer = await providerFetch()(`${origin}/token`, { method: 'POST', body: 'x', headers: {}, redirect: 'manual' });
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe('/elsewhere');
    expect(paths).toEqual(['/token']);
  });

  it("stops waiting when the call's signal times out, with the signal's TimeoutError", async () => {
    const origin = await provider(() => {
      // never answers
    });
    const call = providerFetch()(`${origin}/token`, { method: 'POST', body: 'x', headers: {}, redirect: 'manual', signal: AbortSignal.timeout(150) });
    await expect(call).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('stops waiting for an answer that starts and never ends, with the TimeoutError', async () => {
    const origin = await provider((_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"keys": [');
    });
    const call = providerFetch()(`${origin}/jwks`, { method: 'GET', body: undefined, headers: {}, redirect: 'manual', signal: AbortSignal.timeout(150) });
    await expect(call).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('fails as fetch does (a TypeError) when nothing listens', async () => {
    const origin = await provider(() => undefined);
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const call = providerFetch()(`${origin}/token`, { method: 'POST', body: 'x', headers: {}, redirect: 'manual' });
    await expect(call).rejects.toBeInstanceOf(TypeError);
  });

  it('fails (a TypeError) instead of holding an answer larger than any provider sends', async () => {
    const origin = await provider((_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const more = () => {
        while (sent <= PROVIDER_ANSWER_MAX_BYTES * 4) {
          sent += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', more);
        }
        response.end();
      };
      response.on('error', () => undefined);
      more();
    });
    const call = providerFetch()(`${origin}/jwks`, { method: 'GET', body: undefined, headers: {}, redirect: 'manual' });
    await expect(call).rejects.toBeInstanceOf(TypeError);
  });

  it('refuses an address with credentials in it, as fetch does, without calling it', async () => {
    let calls = 0;
    const origin = await provider((_request, _body, response) => {
      calls++;
      response.end('{}');
    });
    const call = providerFetch()(origin.replace('http://', 'http://user:secret@') + '/token', {
      method: 'GET',
      body: undefined,
      headers: {},
      redirect: 'manual',
    });
    await expect(call).rejects.toBeInstanceOf(TypeError);
    expect(calls).toBe(0);
  });

  it('answers a bodiless status with no body', async () => {
    const origin = await provider((_request, _body, response) => {
      response.writeHead(204);
      response.end();
    });
    const answer = await providerFetch()(`${origin}/revoke`, { method: 'POST', body: 'x', headers: {}, redirect: 'manual' });
    expect(answer.status).toBe(204);
    expect(answer.body).toBeNull();
  });
});
