import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { parseMime, type ParsedMail } from './mime.js';

export interface CapturedMail extends ParsedMail {
  /** The envelope's recipients, as the SMTP client gave them. */
  to: string[];
  raw: string;
}

export interface SmtpCaptureOptions {
  /** Requires SMTP AUTH with these (over the plain connection, as on a local relay). */
  credentials?: { user: string; pass: string };
  /** How long the server takes to accept each message after its data (a slow relay). */
  delayMs?: number;
  /** Takes each message's data and never answers: a server frozen mid-DATA. */
  freezeAtData?: boolean;
  /** Refuses these recipients at RCPT TO: with 550 (a mailbox that does not exist) unless `refusalCode` says otherwise. */
  refuses?: (address: string) => boolean;
  /** The reply code of those refusals: 451 is a temporary one (a greylisting server, a full mailbox). */
  refusalCode?: number;
}

/**
 * A real SMTP server on 127.0.0.1 that keeps what it receives (STYLE.md: real SMTP in tests).
 * It can be stopped and started again on the same port, to play an SMTP outage; stopping drops
 * open connections at once, as an outage does.
 */
export class SmtpCapture {
  readonly messages: CapturedMail[] = [];
  /** The most messages it was accepting at the same moment. */
  maxConcurrent = 0;
  private concurrent = 0;
  private server: SMTPServer | undefined;
  private port = 0;
  private readonly credentials: { user: string; pass: string } | undefined;

  constructor(private readonly options: SmtpCaptureOptions = {}) {
    this.credentials = options.credentials;
  }

  get url(): string {
    const auth = this.credentials === undefined ? '' : `${encodeURIComponent(this.credentials.user)}:${encodeURIComponent(this.credentials.pass)}@`;
    return `smtp://${auth}127.0.0.1:${this.port}`;
  }

  /** Listens on the given port, or on the one it had before, or on a free one. */
  async start(port: number = this.port): Promise<void> {
    const credentials = this.credentials;
    const { delayMs = 0, freezeAtData = false, refuses, refusalCode = 550 } = this.options;
    const server = new SMTPServer({
      logger: false,
      closeTimeout: 50,
      disabledCommands: credentials === undefined ? ['STARTTLS', 'AUTH'] : ['STARTTLS'],
      authOptional: credentials === undefined,
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        if (credentials !== undefined && auth.username === credentials.user && auth.password === credentials.pass) {
          callback(null, { user: auth.username });
        } else {
          callback(new Error('Invalid username or password'));
        }
      },
      onRcptTo(address, _session, callback) {
        if (refuses?.(address.address) === true)
          callback(Object.assign(new Error(refusalCode >= 500 ? 'No such mailbox' : 'Try again later'), { responseCode: refusalCode }));
        else callback();
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        this.concurrent += 1;
        this.maxConcurrent = Math.max(this.maxConcurrent, this.concurrent);
        stream.on('end', () => {
          if (freezeAtData) return;
          setTimeout(() => {
            this.concurrent -= 1;
            const raw = Buffer.concat(chunks).toString('utf8');
            this.messages.push({ ...parseMime(raw), to: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw });
            callback();
          }, delayMs);
        });
      },
    });
    // A client that vanishes mid-message (a server process killed while sending) resets its
    // connection: that message was never accepted, and the capture carries on.
    server.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (server.server.address() as AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The first message to an address, waiting for it up to `timeoutMs`. */
  async waitFor(to: string, timeoutMs = 5000): Promise<CapturedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find((message) => message.to.includes(to));
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
