import type { Embedder, MemoryStore } from '@powercontext/memory-core';
import { createFakeEmbedder, InMemoryMemoryStore } from '@powercontext/memory-core/testing';

/**
 * The in-memory store whose write transactions wait at a gate while it is closed: a write that has
 * begun its transaction and takes as long as a test wants, as a large write on a busy database does.
 */
export class GatedStore {
  readonly store: MemoryStore;
  readonly inner = new InMemoryMemoryStore();
  #gate: Promise<void> | undefined;
  #open: (() => void) | undefined;
  readonly #pending = new Set<Promise<unknown>>();

  constructor() {
    this.store = new Proxy(this.inner, {
      get: (target, property, receiver) => {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        if (property !== 'write') return value.bind(target);
        return (...args: Parameters<MemoryStore['write']>) => {
          const gate = this.#gate;
          if (!gate) return target.write(...args);
          const pending = gate.then(() => target.write(...args));
          this.#pending.add(pending);
          void pending.finally(() => this.#pending.delete(pending)).catch(() => {});
          return pending;
        };
      },
    });
  }

  /** Writes that reach the store from now on wait until `open`. */
  close(): void {
    this.#gate = new Promise<void>((resolve) => {
      this.#open = resolve;
    });
  }

  /** How many writes wait at the gate. */
  get waiting(): number {
    return this.#pending.size;
  }

  /** Lets the waiting writes in, and resolves once they have committed or failed. */
  async open(): Promise<void> {
    this.#open?.();
    this.#gate = undefined;
    await Promise.allSettled([...this.#pending]);
  }
}

/** The fake embedder, taking `ms` per call unless the call's signal aborts first. */
export function slowEmbedder(ms: number): Embedder {
  const inner = createFakeEmbedder();
  return {
    profile: inner.profile,
    embed: (texts, options = {}) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve(inner.embed(texts)), ms);
        options.signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(options.signal?.reason);
        });
      }),
  };
}
