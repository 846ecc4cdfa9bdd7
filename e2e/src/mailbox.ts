import { type AddressInfo } from 'node:net';
import PostalMime from 'postal-mime';
import { SMTPServer } from 'smtp-server';

export interface CapturedMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Every http(s) link in the text part, in order. */
  links: string[];
}

/**
 * A real SMTP server on loopback that keeps what it receives, so a test reads the mail a person
 * would read. It can be stopped and started again on the same port to play an outage.
 */
export class MailCapture {
  readonly received: CapturedMail[] = [];
  private server: SMTPServer | undefined;
  private port = 0;
  private waiters: Array<() => void> = [];

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = new SMTPServer({
      // Plain SMTP on loopback: no TLS to negotiate and no login, like a local relay.
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, session, callback) => {
        readAll(stream)
          .then((raw) => PostalMime.parse(raw))
          .then((parsed) => {
            const text = parsed.text ?? '';
            this.received.push({
              to: session.envelope.rcptTo.map((rcpt) => rcpt.address).join(', '),
              subject: parsed.subject ?? '',
              text,
              html: parsed.html ?? '',
              links: [...text.matchAll(/https?:\/\/[^\s<>")]+/g)].map((match) => match[0]),
            });
            for (const wake of this.waiters.splice(0)) wake();
            callback();
          })
          .catch((error: unknown) => callback(error instanceof Error ? error : new Error(String(error))));
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.server.address() as AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Waits for a message to an address whose subject matches, newest first. */
  async waitFor(to: string, subject: RegExp, timeoutMs = 20_000): Promise<CapturedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = [...this.received].reverse().find((mail) => mail.to.includes(to) && subject.test(mail.subject));
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no mail to ${to} matching ${subject}; received: ${this.received.map((m) => `${m.to}: ${m.subject}`).join('; ')}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 500));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  count(to: string): number {
    return this.received.filter((mail) => mail.to.includes(to)).length;
  }
}

/** The first link in a mail whose path starts with the given route prefix. */
export function linkTo(mail: CapturedMail, prefix: string): string {
  const link = mail.links.find((candidate) => new URL(candidate).pathname.startsWith(prefix));
  if (!link) throw new Error(`no ${prefix} link in "${mail.subject}": ${mail.links.join(', ')}`);
  return link;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}
