import { lookup as dnsLookup } from 'node:dns';
import { MemgateError } from '@memgate/core';
import { Agent, buildConnector } from 'undici';
import { isIpLiteral, refusalOf, stripBrackets } from './address.ts';

export { isIpLiteral, refusalOf } from './address.ts';

export type LookupAll = (
  hostname: string,
  callback: (error: Error | null, addresses: { address: string; family: number }[]) => void,
) => void;

export interface TargetGuardOptions {
  /** PROXY_ALLOW_PRIVATE_TARGETS: http and private/loopback addresses allowed (local testing only). */
  allowPrivate?: boolean;
  /** PROXY_ALLOWED_HOSTS: when non-empty, only these hostnames (lower case) are allowed. */
  allowedHosts?: readonly string[];
  /** DNS resolution (tests inject one that maps a public name to private addresses). */
  lookup?: LookupAll;
  connectTimeoutMs?: number;
}

/** Checks target URLs and connects only to addresses it checked. */
export interface TargetGuard {
  /** Parses and checks a base URL before any connection; throws a 400 `invalid_target` when refused. */
  checkUrl(raw: string): URL;
  /** The undici dispatcher whose connect resolves, checks every address and connects to a checked one. */
  readonly dispatcher: Agent;
}

/** Thrown from inside the connector so a refused address is told apart from an unreachable one. */
export class TargetRefusedError extends Error {
  constructor(reason: string) {
    super(`target refused: ${reason}`);
    this.name = 'TargetRefusedError';
  }
}

export function refusedTarget(reason: string): MemgateError {
  return new MemgateError('validation', 'invalid_target', `proxy target is not allowed: ${reason}`);
}

/**
 * A host name in the one form every check compares: lower case, without the trailing dot of a fully qualified name
 * (`localhost.` is `localhost`: DESIGN.md section 4). Undefined for a name with an empty label (`a..`, `.a`).
 */
export function canonicalHost(hostname: string): string | undefined {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return host === '' || host.startsWith('.') || host.endsWith('.') || host.includes('..') ? undefined : host;
}

const systemLookup: LookupAll = (hostname, callback) =>
  dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => callback(error, addresses ?? []));

/** DESIGN.md section 4 target safety: https only, public addresses only (after DNS), optional host allow-list. */
export function createTargetGuard({
  allowPrivate = false,
  allowedHosts = [],
  lookup = systemLookup,
  connectTimeoutMs = 10_000,
}: TargetGuardOptions = {}): TargetGuard {
  const connect = buildConnector({ timeout: connectTimeoutMs });
  const allowed = new Set(allowedHosts.map((host) => canonicalHost(host) ?? host));

  function checkUrl(raw: string): URL {
    let url: URL;
    try {
      // WHATWG parsing normalises every IPv4 notation (2130706433, 0x7f.1, 0177.0.0.1, 127.1) to dotted decimal.
      url = new URL(raw);
    } catch {
      throw refusedTarget('the base URL is not a valid URL');
    }
    if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
      throw refusedTarget('only https targets are accepted');
    }
    if (url.username || url.password) throw refusedTarget('credentials in the base URL are not accepted');
    const host = canonicalHost(url.hostname);
    if (host === undefined) throw refusedTarget('the host name has an empty label');
    // Connect to the canonical name: the checks below and the connector then see the same host.
    if (url.hostname !== host) url.hostname = host;
    if (allowed.size > 0 && !allowed.has(host)) {
      throw refusedTarget(`host ${host} is not in PROXY_ALLOWED_HOSTS`);
    }
    if (!allowPrivate && isIpLiteral(host)) {
      const refusal = refusalOf(host);
      if (refusal) throw refusedTarget(`${refusal} ${host}`);
    }
    return url;
  }

  const guardedConnect: buildConnector.connector = function guardedConnect(options, callback) {
    // A name reaching here was canonicalised by checkUrl; the dot is dropped again for direct users of the dispatcher.
    const host = stripBrackets(options.hostname).replace(/\.$/, '');
    if (allowPrivate || isIpLiteral(host)) {
      // IP literals never go through DNS, so they are checked here as well as in checkUrl.
      const refusal = allowPrivate ? undefined : refusalOf(host);
      if (refusal) return callback(new TargetRefusedError(`${refusal} ${host}`), null);
      return connect(options, callback);
    }
    lookup(host, (error, addresses) => {
      if (error) return callback(error, null);
      if (addresses.length === 0) return callback(new Error(`no address for ${host}`), null);
      for (const { address } of addresses) {
        const refusal = refusalOf(address);
        if (refusal) return callback(new TargetRefusedError(`${host} resolves to a ${refusal}`), null);
      }
      const chosen = addresses[0] as { address: string };
      // Connect to the address just checked (no second lookup); TLS still verifies the certificate for `host`.
      connect({ ...options, hostname: chosen.address, servername: options.servername || host }, callback);
    });
  };

  return { checkUrl, dispatcher: new Agent({ connect: guardedConnect }) };
}

/** Walks an error's cause chain for a refused target (undici wraps connector errors in `fetch failed`). */
export function findRefusal(error: unknown): TargetRefusedError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    if (current instanceof TargetRefusedError) return current;
    current = current.cause;
  }
  return undefined;
}
