/**
 * Identity of the cross-encoder rerank policy. The id covers what shapes the request and how the
 * answer is read: the query and candidate texts sent (each cut to CROSS_ENCODER_DOCUMENT_BUDGET_BYTES),
 * one request scoring all n candidates, the exactly-once check of the answer, and the selection rule
 * (score descending, ties by coarse rank, optional minimum score, limit, coarse fallback). Change any of
 * them and the id must change.
 */
export const CROSS_ENCODER_POLICY_ID = 'powercontext.memory.rerank.cross-encoder.v1';

/**
 * Most UTF-8 bytes of one candidate's text sent to the rerank model, cut on a character boundary. Rerank
 * models read a few hundred tokens per pair, and some servers refuse longer inputs instead of cutting them.
 */
export const CROSS_ENCODER_DOCUMENT_BUDGET_BYTES = 2_048;
