import ipaddr from 'ipaddr.js';

/**
 * Why an address may not be connected to, or undefined when it is a public unicast address.
 * Only ipaddr.js's `unicast` range passes: loopback, private, link-local (incl. 169.254.169.254 metadata), CGNAT,
 * multicast, broadcast, reserved, unspecified, unique-local, and every IPv4-in-IPv6 form (mapped, compatible, 6to4,
 * NAT64, Teredo) are refused, since each can reach a private IPv4 address.
 */
export function refusalOf(address: string): string | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return 'not an IP address';
  const parsed = ipaddr.parse(bare);
  const range = parsed.range();
  // ::/96 (IPv4-compatible, e.g. ::7f00:1 = ::127.0.0.1) has no range of its own in ipaddr.js; ::1 and :: in it
  // have theirs, named as such in the refusal.
  if (
    range === 'unicast' &&
    parsed.kind() === 'ipv6' &&
    (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)
  ) {
    return 'IPv4-compatible address';
  }
  return range === 'unicast' ? undefined : `${range} address`;
}

/** True when `host` (a URL hostname, brackets allowed) is an IP literal rather than a name to resolve. */
export function isIpLiteral(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return ipaddr.isValid(bare) && (bare.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(bare));
}

export function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}
