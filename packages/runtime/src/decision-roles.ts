import {
  DecisionFailurePolicy,
  type DecisionModel,
  isFailOpenWrapped,
  withFailOpen,
} from '@powercontext/decision-model';
import type { Logger } from '@powercontext/memory-core';
import { ConfigurationError } from './configuration-error.js';

/** A consumer of the decision backend. The role, not the backend, declares how failures are handled. */
export interface DecisionRole {
  decisionKind: string;
  /** Absent means fail_open: advisory consumers must never block what they decorate. */
  failurePolicy?: DecisionFailurePolicy;
}

/** The roles this runtime composes. Only reranking fails closed (seed 001). */
export const DECISION_ROLES = {
  rerank: { decisionKind: 'memory.rerank', failurePolicy: DecisionFailurePolicy.failClosed },
  writeGate: { decisionKind: 'memory.write_gate' },
} as const satisfies Record<string, DecisionRole>;

/**
 * The handle a role receives from the one shared backend: fail_open roles get the fail-open envelope
 * (the single place where degradation happens), fail_closed roles the unwrapped backend. Refuses to
 * hand a wrapped handle to a fail_closed role, which would turn outages into silent "keep" verdicts.
 */
export function decisionHandleFor(
  role: DecisionRole,
  backend: DecisionModel,
  options: { timeoutMs?: number; logger?: Logger } = {},
): DecisionModel {
  const policy = role.failurePolicy ?? DecisionFailurePolicy.failOpen;
  if (policy === DecisionFailurePolicy.failClosed) {
    if (isFailOpenWrapped(backend)) {
      throw new ConfigurationError(
        `decision role ${role.decisionKind}`,
        'is fail_closed and must receive the unwrapped decision backend, not a fail-open wrapped handle',
      );
    }
    return backend;
  }
  if (isFailOpenWrapped(backend)) return backend;
  return withFailOpen(backend, {
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.logger ? { logger: options.logger } : {}),
  });
}
