import type {
  AssemblyContract,
  AssemblyContractInput,
  OmittedCandidate,
  PreparedContext,
  SelectedChunk,
} from '@powercontext/runtime';
import { toOptionalArtifactRef, toScopesRead } from './wire.js';

type NearRule = NonNullable<AssemblyContract['duplicates']['near']>;

/** The contract as the API takes it (snake_case, every field optional), from the route or the MCP tool. */
export interface WireContractInput {
  version?: AssemblyContract['version'] | undefined;
  token_budget?: number | undefined;
  max_chunks?: number | undefined;
  per_source_cap?: number | undefined;
  duplicates?:
    | {
        exact?: AssemblyContract['duplicates']['exact'] | undefined;
        near?: { rule?: NearRule['rule'] | undefined; threshold?: number | undefined } | null | undefined;
      }
    | undefined;
  ordering?: AssemblyContract['ordering'] | undefined;
  framing?: AssemblyContract['framing'] | undefined;
  tokenizer?: AssemblyContract['tokenizer'] | undefined;
}

/**
 * The wire contract as the runtime's input: only the fields that were sent, renamed. The runtime
 * validates the values (bounds included); its ValidationError names `contract.<field>`.
 */
export function toContractInput(wire: WireContractInput | undefined): AssemblyContractInput | undefined {
  if (wire === undefined) return undefined;
  const near = wire.duplicates?.near;
  return {
    ...(wire.version === undefined ? {} : { version: wire.version }),
    ...(wire.token_budget === undefined ? {} : { tokenBudget: wire.token_budget }),
    ...(wire.max_chunks === undefined ? {} : { maxChunks: wire.max_chunks }),
    ...(wire.per_source_cap === undefined ? {} : { perSourceCap: wire.per_source_cap }),
    ...(wire.duplicates === undefined
      ? {}
      : {
          duplicates: {
            ...(wire.duplicates.exact === undefined ? {} : { exact: wire.duplicates.exact }),
            ...(near === undefined
              ? {}
              : {
                  near:
                    near === null
                      ? null
                      : {
                          ...(near.rule === undefined ? {} : { rule: near.rule }),
                          ...(near.threshold === undefined ? {} : { threshold: near.threshold }),
                        },
                }),
          },
        }),
    ...(wire.ordering === undefined ? {} : { ordering: wire.ordering }),
    ...(wire.framing === undefined ? {} : { framing: wire.framing }),
    ...(wire.tokenizer === undefined ? {} : { tokenizer: wire.tokenizer }),
  };
}

export function toWireContract(contract: AssemblyContract) {
  const near = contract.duplicates.near;
  return {
    version: contract.version,
    token_budget: contract.tokenBudget,
    max_chunks: contract.maxChunks,
    per_source_cap: contract.perSourceCap,
    duplicates: {
      exact: contract.duplicates.exact,
      near: near === null ? null : { rule: near.rule, threshold: near.threshold },
    },
    ordering: contract.ordering,
    framing: contract.framing,
    tokenizer: contract.tokenizer,
  };
}

function citationOf(chunk: SelectedChunk | OmittedCandidate) {
  return {
    memory_ref: {
      artifact_id: chunk.memoryRef.artifactId,
      scope_id: chunk.memoryRef.scopeId,
      revision: chunk.memoryRef.revision,
    },
    entry_id: chunk.entryId,
    entry_version_id: chunk.entryVersionId,
  };
}

function toWireSelected(chunk: SelectedChunk) {
  return {
    ref: chunk.ref,
    evidence_rank: chunk.evidenceRank,
    citation: citationOf(chunk),
    source: chunk.source,
    content_digest: chunk.contentDigest,
    tokens: chunk.tokens,
    ...(chunk.score === undefined ? {} : { score: chunk.score }),
  };
}

function toWireOmitted(omission: OmittedCandidate) {
  return {
    ref: omission.ref,
    ...(omission.evidenceRank === undefined ? {} : { evidence_rank: omission.evidenceRank }),
    citation: citationOf(omission),
    source: omission.source,
    content_digest: omission.contentDigest,
    ...(omission.tokens === undefined ? {} : { tokens: omission.tokens }),
    ...(omission.score === undefined ? {} : { score: omission.score }),
    reason: omission.reason,
    ...(omission.duplicateOf === undefined ? {} : { duplicate_of: omission.duplicateOf }),
    ...(omission.duplicateMatch === undefined ? {} : { duplicate_match: omission.duplicateMatch }),
    ...(omission.similarity === undefined ? {} : { similarity: omission.similarity }),
  };
}

/**
 * The answer of `POST /v1/context/prepare` and the `prepare_context` tool: the assembly report with its
 * citations and omissions. Retrieved text appears only inside the framed `context`; the search hits and
 * the rerank trace stay in the process.
 */
export function toPreparedContext(prepared: PreparedContext, listScopes = false) {
  const { assembly } = prepared;
  const counts = assembly.omissionCounts;
  return {
    memory: toOptionalArtifactRef(prepared.memory),
    ...(listScopes ? { scopes: toScopesRead(prepared.scopes) } : {}),
    mode: prepared.mode,
    context: assembly.context,
    total_tokens: assembly.totalTokens,
    frame_tokens: assembly.frameTokens,
    contract: toWireContract(assembly.contract),
    contract_digest: assembly.contractDigest,
    evidence: {
      kind: assembly.evidence.kind,
      policy_id: assembly.evidence.policyId,
      model_id: assembly.evidence.modelId,
      query_digest: assembly.evidence.queryDigest,
      candidate_set_digest: assembly.evidence.candidateSetDigest,
    },
    selected: assembly.selected.map(toWireSelected),
    omitted: assembly.omitted.map(toWireOmitted),
    omission_counts: {
      duplicate_of: counts.duplicate_of,
      chunk_limit: counts.chunk_limit,
      source_cap: counts.source_cap,
      token_budget: counts.token_budget,
      not_selected: counts.not_selected,
    },
  };
}
