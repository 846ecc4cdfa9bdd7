// The floor of a cheap call over HTTP on this machine: node:http answering every request with one
// fixed body and fixed headers (the harness passes the very answer Foyer gave to a session check,
// headers and body), after reading the request. No routing, parsing, database or framework: how
// many answers per second *any* server gets out of these two cores with the load generator on
// them, which the session check is judged against.
//
// Environment: PORT, HOST (default 127.0.0.1), ANSWER (JSON { status, headers, body }).
// Prints `{"ready":true,...}` once it listens.
import { createServer } from 'node:http';

const port = Number(process.env.PORT ?? 8792);
const host = process.env.HOST ?? '127.0.0.1';
const answer = JSON.parse(process.env.ANSWER ?? '{"status":200,"headers":{"content-type":"application/json"},"body":"{}"}');
const body = Buffer.from(answer.body, 'utf8');
const headers = { ...answer.headers, 'content-length': String(body.length) };

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(answer.status, headers);
    response.end(body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, host, () => process.stdout.write(`${JSON.stringify({ ready: true, pid: process.pid })}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
