/** What a write advisor said about one new entry of a remember batch. Never blocks the write. */
export interface WriteAdvice {
  /** Position of the entry in the remember request. */
  entryIndex: number;
  /** Which policy answered, e.g. `powercontext.decision.evaluate.v1`. */
  policyId: string;
  /** Low-cardinality label of the consumer, e.g. `memory.write_gate`. */
  decisionKind: string;
  /** yes: duplicates or contradicts an existing entry; no: does not; abstain: could not tell. */
  outcome: 'yes' | 'no' | 'abstain';
  /** Active entries the advisor compared the new entry with (top coarse hits). */
  comparedEntryIds: string[];
  /** True when the advisor's backend failed and a fail-open envelope answered in its place. */
  usedFallback: boolean;
}

export type WriteAdvisorMode = 'shadow' | 'advisory';

/**
 * An advisory check run before a remember's compare-and-swap, outside the write transaction.
 * `shadow` advice is only logged; `advisory` advice is also returned with the write result.
 */
export interface WriteAdvisor {
  readonly mode: WriteAdvisorMode;
  review(
    scopeId: string,
    entries: readonly { text: string; kind: string }[],
    options?: { signal?: AbortSignal },
  ): Promise<WriteAdvice[]>;
}
