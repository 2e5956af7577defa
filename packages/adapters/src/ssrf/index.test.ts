import { MemgateError } from '@memgate/core';
import { fetch } from 'undici';
import { describe, expect, it } from 'vitest';
import { createTargetGuard, findRefusal, type LookupAll } from './index.ts';

const REFUSED_URLS = [
  'https://127.0.0.1/v1',
  'https://127.1/v1',
  'https://2130706433/v1',
  'https://0x7f000001/v1',
  'https://0x7f.1/v1',
  'https://0177.0.0.1/v1',
  'https://017700000001/v1',
  'https://127.0.0.1./v1',
  'https://localhost../v1',
  'https://.localhost/v1',
  'https://0.0.0.0/v1',
  'https://0/v1',
  'https://10.0.0.1/v1',
  'https://172.16.5.4/v1',
  'https://192.168.1.1/v1',
  'https://169.254.169.254/latest/meta-data',
  'https://0xa9fea9fe/v1',
  'https://100.64.0.1/v1',
  'https://224.0.0.1/v1',
  'https://255.255.255.255/v1',
  'https://240.0.0.1/v1',
  'https://198.18.0.1/v1',
  'https://192.0.2.1/v1',
  'https://[::1]/v1',
  'https://[::]/v1',
  'https://[::ffff:127.0.0.1]/v1',
  'https://[::ffff:7f00:1]/v1',
  'https://[0:0:0:0:0:ffff:169.254.169.254]/v1',
  'https://[::127.0.0.1]/v1',
  'https://[2002:7f00:1::]/v1',
  'https://[64:ff9b::7f00:1]/v1',
  'https://[fc00::1]/v1',
  'https://[fd12:3456::1]/v1',
  'https://[fe80::1]/v1',
  'https://[ff02::1]/v1',
  'https://[2001:db8::1]/v1',
  'http://api.example.com/v1',
  'ftp://api.example.com/v1',
  'file:///etc/passwd',
  'https://user:pass@api.example.com/v1',
  'not a url',
];

describe('target guard: URLs refused before any connection', () => {
  const guard = createTargetGuard();
  it.each(REFUSED_URLS)('refuses %s', (url) => {
    let thrown: unknown;
    try {
      guard.checkUrl(url);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(MemgateError);
    expect(thrown).toMatchObject({ kind: 'validation', code: 'invalid_target' });
  });

  it.each([
    ['https://[::1]/v1', 'loopback address [::1]'],
    ['https://[::]/v1', 'unspecified address [::]'],
    ['https://[::7f00:1]/v1', 'IPv4-compatible address [::7f00:1]'],
  ])('names what %s is', (url, reason) => {
    expect(() => guard.checkUrl(url)).toThrow(`proxy target is not allowed: ${reason}`);
  });

  it('accepts a public https target', () => {
    expect(guard.checkUrl('https://api.openai.com/v1').hostname).toBe('api.openai.com');
    expect(guard.checkUrl('https://8.8.8.8/v1').hostname).toBe('8.8.8.8');
  });

  it('applies PROXY_ALLOWED_HOSTS', () => {
    const strict = createTargetGuard({ allowedHosts: ['api.openai.com'] });
    expect(() => strict.checkUrl('https://api.openai.com/v1')).not.toThrow();
    expect(() => strict.checkUrl('https://api.example.com/v1')).toThrow(/PROXY_ALLOWED_HOSTS/);
  });

  it('treats a trailing dot as the same host, in PROXY_ALLOWED_HOSTS too', () => {
    const strict = createTargetGuard({ allowedHosts: ['api.openai.com', 'api.example.org.'] });
    expect(strict.checkUrl('https://api.openai.com./v1').hostname).toBe('api.openai.com');
    expect(strict.checkUrl('https://api.example.org/v1').hostname).toBe('api.example.org');
    expect(() => strict.checkUrl('https://api.example.com./v1')).toThrow(/PROXY_ALLOWED_HOSTS/);
  });

  it('allows http and loopback only with allowPrivate', () => {
    expect(() => createTargetGuard({ allowPrivate: true }).checkUrl('http://127.0.0.1:8080/v1')).not.toThrow();
  });
});

describe('target guard: addresses checked after DNS, on the address connected to', () => {
  function lookupTo(addresses: string[]): { lookup: LookupAll; calls: string[] } {
    const calls: string[] = [];
    const lookup: LookupAll = (hostname, callback) => {
      calls.push(hostname);
      callback(
        null,
        addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      );
    };
    return { lookup, calls };
  }

  it.each(['https://localhost./v1', 'https://LocalHost./v1', 'https://localhost/v1'])(
    'resolves %s as the one host localhost (a trailing dot is the same host) and refuses its loopback address',
    async (target) => {
      const { lookup, calls } = lookupTo(['127.0.0.1', '::1']);
      const guard = createTargetGuard({ lookup });
      const url = guard.checkUrl(target);
      expect(url.hostname).toBe('localhost');
      const error = await fetch(`${url.href}/chat/completions`, { method: 'POST', dispatcher: guard.dispatcher }).catch(
        (caught: unknown) => caught,
      );
      expect(calls).toEqual(['localhost']);
      expect(findRefusal(error)?.message).toMatch(/localhost resolves to a loopback address/);
    },
  );

  it.each([
    [['127.0.0.1']],
    [['10.1.2.3']],
    [['169.254.169.254']],
    [['::ffff:10.0.0.1']],
    [['93.184.216.34', '192.168.0.10']],
  ])('refuses a public name resolving to %j', async (addresses) => {
    const { lookup, calls } = lookupTo(addresses);
    const guard = createTargetGuard({ lookup });
    const url = guard.checkUrl('https://rebind.example.com/v1');
    const error = await fetch(`${url.href}/chat/completions`, { method: 'POST', dispatcher: guard.dispatcher }).catch(
      (caught: unknown) => caught,
    );
    expect(calls).toEqual(['rebind.example.com']);
    expect(findRefusal(error)?.message).toMatch(/rebind\.example\.com resolves to a/);
  });
});
