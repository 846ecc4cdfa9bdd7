// The floor of a DiscourseConnect round trip on this machine: node:http, JSON.parse of the
// forum's request as Foyer receives it, the HMAC-SHA256 check of its payload (constant time), its
// base64 decoded, and an answer payload built, base64-encoded and signed the same way. That is the
// cryptography and encoding the round trip cannot do without; no framework, session, nonce or
// audit. The harness judges Foyer's forum sign-in against it.
//
// Environment: PORT, HOST (default 127.0.0.1), SECRET (the DiscourseConnect secret), USER_FIELDS (JSON
// { email, name, username, externalId }). Prints `{"ready":true,...}` once it listens.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const port = Number(process.env.PORT ?? 8793);
const host = process.env.HOST ?? '127.0.0.1';
const secret = process.env.SECRET ?? '';
const user = JSON.parse(process.env.USER_FIELDS ?? '{}');
const sign = (payload) => createHmac('sha256', secret).update(payload, 'utf8').digest('hex');

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    let status = 400;
    let body = '{"errorMessage":"invalidSsoPayload"}';
    try {
      const { ssoPayload, signature } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const expected = Buffer.from(sign(ssoPayload), 'hex');
      const given = Buffer.from(signature, 'hex');
      if (given.length === expected.length && timingSafeEqual(expected, given)) {
        const fields = new URLSearchParams(Buffer.from(ssoPayload, 'base64').toString('utf8'));
        const answer = Buffer.from(
          new URLSearchParams({
            nonce: fields.get('nonce') ?? '',
            name: user.name,
            username: user.username,
            email: user.email,
            external_id: user.externalId,
            require_activation: 'false',
          }).toString(),
        ).toString('base64');
        const redirectUrl = `${fields.get('return_sso_url')}?${new URLSearchParams({ sso: answer, sig: sign(answer) })}`;
        status = 200;
        body = JSON.stringify({ termsAgreed: true, redirectUrl });
      }
    } catch {
      // a bad body stays a 400
    }
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, host, () => process.stdout.write(`${JSON.stringify({ ready: true, pid: process.pid })}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
