export {
  ASSEMBLY_SLICE_MS,
  type AssembleContextInput,
  type AssembleContextOptions,
  assembleContext,
  checkAssemblyContract,
  packContext,
} from './assemble-context.js';
export {
  ASSEMBLY_MAX_CANDIDATES,
  type AssemblyCandidate,
  assemblyCandidateSchema,
} from './assembly-candidate.js';
export {
  ASSEMBLY_CONTRACT_COUNTS,
  ASSEMBLY_CONTRACT_VERSION,
  ASSEMBLY_ORDERINGS,
  type AssemblyContract,
  type AssemblyContractInput,
  type AssemblyOrdering,
  assemblyContractSchema,
  EXACT_DUPLICATE_RULE_ID,
  NEAR_DUPLICATE_THRESHOLD_DEFAULT,
  parseAssemblyContract,
} from './assembly-contract.js';
export {
  type AssemblyReport,
  type ChunkProvenance,
  OMISSION_REASONS,
  type OmissionReason,
  type OmittedCandidate,
  type SelectedChunk,
} from './assembly-report.js';
export { type CandidateBinding, candidateSetDigest, textDigest } from './digest.js';
export { escapeAttribute, escapeText, FRAME_NOTICE, FRAME_TEMPLATE_ID } from './frame.js';
export {
  CompactShingler,
  compactSimilarity,
  NEAR_DUPLICATE_RULE_ID,
  shinglesOf,
  similarity,
} from './near-duplicate.js';
export {
  bindRerankEvidence,
  type EvidenceOrder,
  type ExpectedEvidenceSource,
  type RerankEvidence,
  type RerankSelection,
  verifyRerankEvidence,
} from './rerank-evidence.js';
export { RerankEvidenceError, type RerankEvidenceMismatch } from './rerank-evidence-error.js';
export { loadTokenizer, TOKENIZER_IDS, type Tokenizer, type TokenizerId } from './tokenizer.js';
