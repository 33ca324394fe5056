import { ApiError } from '../http/api-error.js';
import type { ApiKeyRecord, RateLimit } from './api-keys.js';
import type { Principal } from './principal.js';
import type { RateDecision } from './rate-limiter.js';
import { SearchLanes } from './search-lanes.js';

/**
 * Where the keys' token buckets are kept: this process (RateLimiter, the default) or the database,
 * shared by every process on it (POWERCONTEXT_SERVER_RATE_LIMIT_STORE=postgres).
 */
export interface RateLimitStore {
  take(keyId: string, limit: RateLimit): RateDecision | Promise<RateDecision>;
}

/** Gives back an in-flight slot; calling it again does nothing. */
export type Release = () => void;

/**
 * What a key may start: one token of its rate limit per request or MCP tool call, and one of its
 * in-flight slots while that work runs. Both bound what one tenant can make the server do: the rate
 * limit over time, the slots at any moment (a key past its slots is answered 429 at once instead of
 * queueing work that would hold every other tenant back). The local principal of a keyless server is
 * not limited: it is the only caller.
 */
export class KeyAdmission {
  readonly #inFlight = new Map<string, number>();

  constructor(
    readonly rateLimiter: RateLimitStore | undefined,
    /** The process's lanes for searches and context preparations, shared by every key. */
    readonly searchLanes = new SearchLanes(),
  ) {}

  /** Takes a token of the key's rate limit; throws `rate_limited` when none is left. */
  async charge(principal: Principal): Promise<void> {
    const key = keyOf(principal);
    const decision = key && (await this.rateLimiter?.take(key.keyId, key.rateLimit));
    if (decision && !decision.allowed) {
      throw new ApiError('rate_limited', `Rate limit of key "${key.keyId}" exceeded`, {
        retryable: true,
        retryAfterSeconds: decision.retryAfterSeconds,
      });
    }
  }

  /** Takes an in-flight slot of the key; throws `rate_limited` when all are in use. */
  enter(principal: Principal): Release {
    const key = keyOf(principal);
    if (!key) return () => {};
    const running = this.#inFlight.get(key.keyId) ?? 0;
    if (running >= key.maxInFlight) {
      throw new ApiError(
        'rate_limited',
        `Key "${key.keyId}" already has ${running} requests running, its most at once`,
        { retryable: true, retryAfterSeconds: 1 },
      );
    }
    this.#inFlight.set(key.keyId, running + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#inFlight.get(key.keyId) ?? 1) - 1;
      if (left > 0) this.#inFlight.set(key.keyId, left);
      else this.#inFlight.delete(key.keyId);
    };
  }

  /**
   * Runs a search or a context preparation in one of the process's search lanes, taken in turn with
   * the other keys (SearchLanes), after `admit`. Rejects with the signal's reason if it aborts first.
   */
  inSearchLane<T>(principal: Principal, signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
    return this.searchLanes.run(principal.keyId, signal, work);
  }

  /** `charge`, then `enter`: what one unit of memory work needs. */
  async admit(principal: Principal): Promise<Release> {
    await this.charge(principal);
    return this.enter(principal);
  }
}

function keyOf(principal: Principal): ApiKeyRecord | undefined {
  return 'rateLimit' in principal ? (principal as ApiKeyRecord) : undefined;
}
