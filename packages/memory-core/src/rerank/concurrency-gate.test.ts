import { describe, expect, it } from 'vitest';
import { ConcurrencyGate } from './concurrency-gate.js';

describe('ConcurrencyGate', () => {
  it('admits up to maxInFlight, queues the rest in order, and hands a released slot to the next waiter', async () => {
    const gate = new ConcurrencyGate(2);
    const first = await gate.acquire(1000);
    const second = await gate.acquire(1000);
    expect(gate.inFlight).toBe(2);
    const order: string[] = [];
    const third = gate.acquire(1000).then((release) => {
      order.push('third');
      return release;
    });
    const fourth = gate.acquire(1000).then((release) => {
      order.push('fourth');
      return release;
    });
    first?.();
    first?.(); // idempotent
    (await third)?.();
    second?.();
    (await fourth)?.();
    expect(order).toEqual(['third', 'fourth']);
    expect(gate.inFlight).toBe(0);
  });

  it('gives up after the queue timeout or on abort, without taking a slot', async () => {
    const gate = new ConcurrencyGate(1);
    const held = await gate.acquire(1000);
    expect(await gate.acquire(5)).toBeUndefined();
    const controller = new AbortController();
    const waiting = gate.acquire(10_000, controller.signal);
    controller.abort();
    expect(await waiting).toBeUndefined();
    held?.();
    expect(gate.inFlight).toBe(0);
    expect(await gate.acquire(5)).toBeTypeOf('function');
  });
});
