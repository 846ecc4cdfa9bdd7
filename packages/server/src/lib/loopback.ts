import { BlockList, isIP } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/**
 * Whether a bind address (HOST) is 127.0.0.0/8, ::1 (in any spelling) or `localhost`: reachable
 * from this machine only. What only the developer may reach (the dev mailbox, the Google
 * stand-in) is served on such a bind alone.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  const family = isIP(bare);
  return family !== 0 && LOOPBACK.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

/** The name in a Host header, without its port (an IPv6 literal without its brackets), lower-cased. */
function hostName(header: string): string {
  const value = header.trim().toLowerCase();
  if (value.startsWith('[')) return value.slice(1, value.indexOf(']') === -1 ? undefined : value.indexOf(']'));
  return value.replace(/:\d*$/, '');
}

/**
 * Whether a request names this machine in its Host header: `localhost` (or a name under it), a
 * loopback address, or one of `alsoAllowed` (the service's own public name). What is served only on
 * a loopback bind (the dev mailbox, the Google stand-in) answers such requests alone: a page
 * whose own name its DNS points at 127.0.0.1 (DNS rebinding) reaches the port from the
 * developer's browser, but its requests carry that name.
 */
export function isLocalRequestHost(header: string | undefined, alsoAllowed: readonly string[] = []): boolean {
  if (header === undefined || header === '') return false;
  const name = hostName(header);
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (alsoAllowed.some((allowed) => allowed.toLowerCase() === name)) return true;
  const family = isIP(name);
  return family !== 0 && LOOPBACK.check(name, family === 4 ? 'ipv4' : 'ipv6');
}
