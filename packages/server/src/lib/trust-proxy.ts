import { isIP } from 'node:net';

/**
 * Which hops of `X-Forwarded-For` the service believes (decision 0013): none; the last N, written
 * by N proxies of our own in front of it; or those written by the listed proxy addresses. Passed
 * to Fastify as `trustProxy`, it decides `request.ip`, the key of every per-address rate limit and
 * the address in the audit trail.
 */
export type TrustProxy = false | number | string[];

export type TrustProxyResult = { ok: true; value: TrustProxy } | { ok: false; message: string };

const MAX_HOPS = 10;

/** `10.0.0.0/8` or `10.1.2.3`, IPv4 or IPv6; a /0 range would trust every hop, as `true` did. */
function entryProblem(entry: string): string | undefined {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return `"${entry}" is not an IP address or CIDR range`;
  if (prefix === undefined) return undefined;
  const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
  const max = family === 4 ? 32 : 128;
  if (!(bits >= 1 && bits <= max)) return `"${entry}" needs a prefix length from 1 to ${max}`;
  return undefined;
}

/**
 * Reads TRUST_PROXY. `true` is refused: it trusts the left-most `X-Forwarded-For` entry, which
 * the client writes, so rotating it escapes every per-address limit and fills the audit trail
 * with invented addresses.
 */
export function parseTrustProxy(text: string | undefined): TrustProxyResult {
  const value = (text ?? '').trim();
  if (value === '' || value === 'false' || value === '0') return { ok: true, value: false };
  if (value === 'true') {
    return {
      ok: false,
      message: 'true would trust the address the client writes; give the number of proxies in front of the service (e.g. 1) or their addresses/CIDRs',
    };
  }
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return hops <= MAX_HOPS ? { ok: true, value: hops } : { ok: false, message: `a hop count must be at most ${MAX_HOPS}` };
  }
  const entries = value.split(',').map((entry) => entry.trim());
  const problems = entries.map((entry) => (entry === '' ? 'has an empty entry' : entryProblem(entry))).filter((problem) => problem !== undefined);
  if (problems.length > 0) return { ok: false, message: `${problems.join(', ')} (give a hop count or a comma-separated list of IP addresses/CIDRs)` };
  return { ok: true, value: entries };
}

/**
 * Fastify's `trustProxy` for a parsed value. Fastify 5 refuses a bare number (it cannot tell the
 * proxy from a client that connects directly), so a hop count becomes proxy-addr's hop function:
 * the socket's peer and the next `hops - 1` entries are our proxies, the one before is the
 * client. That holds only when the service is reachable through those proxies alone
 * (decision 0013); otherwise list the proxies' addresses.
 */
export function fastifyTrustProxy(value: TrustProxy): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof value !== 'number') return value;
  const hops = value;
  return (_address, hop) => hop < hops;
}

/**
 * The client's address as the rate limits, the audit trail, the logs and the bot check take it:
 * `request.ip`, which a trusted proxy's `X-Forwarded-For` decides, when it is an IP address. A
 * proxy that writes an entry with a port (`9.9.9.9:1234`, `[2001:db8::1]:443`) has it cut off, so
 * each port is not a client of its own; anything else it writes is no address at all, and the
 * request counts as the proxy's own (the socket's peer), never as a text that changes freely.
 */
export function clientAddress(request: { ip?: string | undefined; socket?: { remoteAddress?: string | undefined } | undefined }): string {
  const ip = request.ip ?? '';
  if (isIP(ip) !== 0) return ip;
  const withPort = /^(?:(\d{1,3}(?:\.\d{1,3}){3})|\[([0-9A-Fa-f:.]+)\]):\d{1,5}$/.exec(ip);
  const address = withPort?.[1] ?? withPort?.[2];
  if (address !== undefined && isIP(address) !== 0) return address;
  return request.socket?.remoteAddress ?? '';
}
