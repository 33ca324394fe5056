import { describe, expect, it } from 'vitest';
import { assertDistinctKeys, findApiKey, hashApiKey, parseApiKeys } from './api-keys.js';
import { decideAccess } from './principal.js';
import { RateLimiter } from './rate-limiter.js';

const document = (keys: unknown[]) => JSON.stringify({ keys });
const key = (id: string, secret: string, extra: Record<string, unknown> = {}) => ({
  id,
  sha256: hashApiKey(secret),
  scopes: ['alpha'],
  permissions: ['read'],
  ...extra,
});

describe('API keys', () => {
  it('stores only the hash and finds the key whose hash matches', () => {
    const keys = parseApiKeys(
      document([key('a', 'secret-a'), key('b', 'secret-b', { scopes: '*' })]),
      'keys.json',
    );
    expect(keys.map((record) => record.keyId)).toEqual(['a', 'b']);
    expect(JSON.stringify(keys)).not.toContain('secret-a');
    expect(findApiKey(keys, 'secret-b')?.keyId).toBe('b');
    expect(findApiKey(keys, 'secret-a')?.scopes).toEqual(['alpha']);
    expect(findApiKey(keys, 'secret-c')).toBeUndefined();
    expect(findApiKey(keys, '')).toBeUndefined();
  });

  it('accepts an upper-case hash and applies the default rate limit', () => {
    const [record] = parseApiKeys(
      document([{ ...key('a', 'k'), sha256: hashApiKey('k').toUpperCase() }]),
      'keys.json',
    );
    expect(findApiKey([record!], 'k')?.keyId).toBe('a');
    expect(record!.rateLimit).toEqual({ requests: 600, windowSeconds: 60 });
  });

  it.each([
    ['not json', 'keys.json: must be a JSON document like {"keys": [...]}'],
    [
      document([{ ...key('a', 'k'), sha256: 'abc' }]),
      'keys.json: keys.0.sha256: sha256 must be the 64 hex digits',
    ],
    [
      document([{ ...key('a', 'k'), permissions: ['admin'] }]),
      'keys.json: keys.0.permissions.0: permissions must be read, write, explain or purge',
    ],
    [document([{ ...key('a', 'k'), scopes: [] }]), 'keys.json: keys.0.scopes'],
    [document([{ ...key('a b', 'k') }]), 'keys.json: keys.0.id: id must be'],
    [document([{ ...key('a', 'k'), plain: 'k' }]), 'keys.json: keys.0'],
    [document([key('a', 'k', { rate_limit: { requests: 0, window_seconds: 1 } })]), 'rate_limit.requests'],
  ])('rejects a bad document (%s) naming the field', (text, message) => {
    expect(() => parseApiKeys(text, 'keys.json')).toThrow(message);
  });

  it('grants purge only to a key that lists it: write does not include it', () => {
    const [writer, purger] = parseApiKeys(
      document([
        key('w', 'k1', { permissions: ['read', 'write', 'explain'] }),
        key('p', 'k2', { permissions: ['purge'] }),
      ]),
      'keys.json',
    );
    expect(decideAccess(writer!, 'alpha', 'purge')).toBe('permission_forbidden');
    expect(decideAccess(purger!, 'alpha', 'purge')).toBe('allowed');
    expect(decideAccess(purger!, 'alpha', 'write')).toBe('permission_forbidden');
  });

  it('rejects two keys with one id or one secret', () => {
    const same = parseApiKeys(document([key('a', 'k1'), key('a', 'k2')]), 'f');
    expect(() => assertDistinctKeys(same)).toThrow('API key id "a" is configured twice');
    const twins = parseApiKeys(document([key('a', 'k'), key('b', 'k')]), 'f');
    expect(() => assertDistinctKeys(twins)).toThrow('same hash');
  });

  it('decides scope before permission, so a foreign scope never reveals what the key lacks', () => {
    const [reader] = parseApiKeys(document([key('r', 'k')]), 'f');
    expect(decideAccess(reader!, 'alpha', 'read')).toBe('allowed');
    expect(decideAccess(reader!, 'alpha', 'write')).toBe('permission_forbidden');
    expect(decideAccess(reader!, 'beta', 'write')).toBe('scope_forbidden');
    expect(decideAccess(reader!, 'beta', 'read')).toBe('scope_forbidden');
  });
});

describe('RateLimiter', () => {
  it('allows a burst of `requests`, refuses with the seconds until the next token, then recovers', () => {
    let now = 0;
    const limiter = new RateLimiter(() => now);
    const limit = { requests: 2, windowSeconds: 10 };
    expect(limiter.take('k', limit)).toEqual({ allowed: true });
    expect(limiter.take('k', limit)).toEqual({ allowed: true });
    expect(limiter.take('k', limit)).toEqual({ allowed: false, retryAfterSeconds: 5 });
    expect(limiter.take('other', limit)).toEqual({ allowed: true });
    now = 4_000;
    expect(limiter.take('k', limit)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    now = 5_000;
    expect(limiter.take('k', limit)).toEqual({ allowed: true });
    expect(limiter.take('k', limit).allowed).toBe(false);
  });
});
