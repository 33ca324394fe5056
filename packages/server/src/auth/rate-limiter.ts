import type { RateLimit } from './api-keys.js';

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * One token bucket per key: `requests` tokens at most, refilled evenly over `windowSeconds`. A request
 * (or an MCP tool call) takes one token; with none left it is refused with the whole seconds until the
 * next token.
 */
export class RateLimiter {
  readonly #buckets = new Map<string, Bucket>();
  readonly #now: () => number;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  take(keyId: string, limit: RateLimit): RateDecision {
    const now = this.#now();
    const perMs = limit.requests / (limit.windowSeconds * 1000);
    const bucket = this.#buckets.get(keyId) ?? { tokens: limit.requests, updatedAt: now };
    bucket.tokens = Math.min(limit.requests, bucket.tokens + (now - bucket.updatedAt) * perMs);
    bucket.updatedAt = now;
    this.#buckets.set(keyId, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)) };
  }
}
