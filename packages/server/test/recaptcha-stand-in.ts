import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const STAND_IN_SECRET = 'stand-in-secret';
export const GOOD_TOKEN = 'stand-in-good-token';

/**
 * A local imitation of Google's reCAPTCHA siteverify (POST form `secret`, `response`, optional
 * `remoteip`; JSON `{ success, challenge_ts, hostname, "error-codes" }`), so the bot check is
 * tested over real HTTP. `mode` plays the service: answering, or failing with a 500.
 */
export class ReCaptchaStandIn {
  mode: 'answer' | 'error' = 'answer';
  readonly requests: URLSearchParams[] = [];
  private server: Server | undefined;

  get url(): string {
    const address = this.server?.address() as AddressInfo | null | undefined;
    return `http://127.0.0.1:${address?.port ?? 0}/recaptcha/api/siteverify`;
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        const form = new URLSearchParams(body);
        this.requests.push(form);
        if (this.mode === 'error') {
          response.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
          return;
        }
        const errors: string[] = [];
        if (form.get('secret') !== STAND_IN_SECRET) errors.push(form.has('secret') ? 'invalid-input-secret' : 'missing-input-secret');
        if (!form.has('response')) errors.push('missing-input-response');
        else if (form.get('response') !== GOOD_TOKEN) errors.push('invalid-input-response');
        const answer =
          errors.length === 0
            ? { success: true, challenge_ts: new Date().toISOString(), hostname: 'localhost' }
            : { success: false, 'error-codes': errors };
        response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', () => resolve()));
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
