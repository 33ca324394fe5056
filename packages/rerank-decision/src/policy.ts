/**
 * Identity of the decision rerank policy. The id covers everything that shapes what the decision
 * model is asked and how its answers are read: the decision kind, the question text, the request
 * layout (subject = candidate text, evidence = [query]), the default keep set and the sequential
 * keep/drop walk. Change any of them and this id must move to v2, so traces never mix two behaviours.
 */
export const DECISION_RERANK_POLICY_ID = 'powercontext.memory.rerank.decision.v1';

/** Low-cardinality consumer label sent as `decisionKind` and written on every log line of the role. */
export const DECISION_RERANK_KIND = 'memory.rerank';

/**
 * The one question of policy v1, asked once per coarse candidate. The subject is the candidate's
 * Memory text and the only evidence item is the normalized search query. Versioned with
 * DECISION_RERANK_POLICY_ID: rewording it (even slightly) means a new policy id.
 */
export const DECISION_RERANK_QUESTION =
  'Does the subject, a stored memory entry, state information that helps answer the search query given as evidence?';
