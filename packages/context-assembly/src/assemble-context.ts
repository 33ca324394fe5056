import { CPU_SLICE_MS, CpuSlice, parseInput, ValidationError } from '@powercontext/memory-core';
import { type AssemblyCandidate, assemblyCandidatesSchema } from './assembly-candidate.js';
import {
  type AssemblyContract,
  type AssemblyContractInput,
  parseAssemblyContract,
} from './assembly-contract.js';
import {
  type AssemblyReport,
  OMISSION_REASONS,
  type OmissionReason,
  type OmittedCandidate,
  type SelectedChunk,
} from './assembly-report.js';
import { textDigest } from './digest.js';
import { chunkBlock, frameHead, frameTail } from './frame.js';
import { CompactShingler, compactSimilarity } from './near-duplicate.js';
import { type ExpectedEvidenceSource, type RerankEvidence, verifyRerankEvidence } from './rerank-evidence.js';
import { loadTokenizer, type Tokenizer } from './tokenizer.js';

export interface AssembleContextInput {
  /** The exact query the evidence was made for (the normalized search query). */
  query: string;
  /** The ordered candidate set, in generator (coarse) order. */
  candidates: readonly AssemblyCandidate[];
  evidence: RerankEvidence;
  /** Defaults fill every missing field. */
  contract?: AssemblyContractInput;
  /** Reject evidence from another policy or model than these. */
  expect?: ExpectedEvidenceSource;
}

/**
 * Validates a contract (filling its defaults) and checks that its token budget holds the empty frame,
 * loading the contract's tokenizer to count it. A caller runs this before any search so that a
 * contract assembly would refuse costs no search; `packContext` makes the same checks.
 */
export async function checkAssemblyContract(input?: AssemblyContractInput): Promise<AssemblyContract> {
  const contract = parseAssemblyContract(input);
  const tokenizer = await loadTokenizer(contract.tokenizer);
  requireFrameFits(contract, frameTokenCount(tokenizer));
  return contract;
}

/** Tokens of the frame without any chunk (head and tail) under `tokenizer`. */
function frameTokenCount(tokenizer: Tokenizer): number {
  return tokenizer.count(frameHead()) + tokenizer.count(frameTail());
}

/** A budget smaller than the empty frame is the caller's error, named as the contract field. */
function requireFrameFits(contract: AssemblyContract, frameTokens: number): void {
  if (frameTokens > contract.tokenBudget) {
    throw new ValidationError([
      {
        field: 'contract.tokenBudget',
        rule: `tokenBudget must be at least the ${frameTokens} tokens the frame itself takes`,
      },
    ]);
  }
}

/** Options of the asynchronous assembly. */
export interface AssembleContextOptions {
  /** Stops the packing walk at its next step with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * How long the asynchronous walk holds the event loop before it lets other work run. Packing is pure
 * CPU (tokenizing, near-duplicate sets); in a server every other request waits while it runs.
 */
export const ASSEMBLY_SLICE_MS = CPU_SLICE_MS;
/** Characters tokenized in one step of the walk: a few milliseconds of js-tiktoken at most. */
const PIECE_CHARS = 2_048;

/**
 * Loads the contract's tokenizer (once per process), then packs as `packContext` does, in steps of at
 * most about ASSEMBLY_SLICE_MS, yielding to the event loop between them and stopping when `signal`
 * aborts. Same input, same report as `packContext`, byte for byte.
 */
export async function assembleContext(
  input: AssembleContextInput,
  options: AssembleContextOptions = {},
): Promise<AssemblyReport> {
  const contract = parseAssemblyContract(input.contract);
  const tokenizer = await loadTokenizer(contract.tokenizer);
  options.signal?.throwIfAborted();
  const steps = packSteps({ ...input, contract }, tokenizer);
  // Turns are shared with every other CPU-bound task of the process (see nextTurn): one slice of
  // all their work per event-loop iteration, so other requests' I/O waits one slice, not one per task.
  const slice = new CpuSlice(options.signal);
  await slice.yield();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (slice.spent) await slice.yield();
  }
}

/**
 * Context assembly under contract v1, with the tokenizer already loaded (it must be the contract's):
 *
 * 1. Validate the contract and the candidates; verify the evidence against the query and the ordered
 *    candidates (RerankEvidenceError otherwise) and take its order.
 * 2. Walk that order once. A candidate whose text repeats a chunk already chosen (same sha256, or
 *    similarity at or above the near-duplicate threshold) is `duplicate_of` the first such chunk: its
 *    content is in the context already, and a repeat would only pose as independent corroboration.
 *    Otherwise it is omitted for `chunk_limit` when M chunks are chosen, `source_cap` when S chunks
 *    of its source are, `token_budget` when its block does not fit in what is left of B (the walk
 *    goes on: a later, shorter chunk may still fit); else it is chosen. Comparing with chosen chunks
 *    only means a near copy of a chunk that did not fit can still carry its content.
 * 3. Write the chosen chunks in the contract's ordering, inside the frame.
 *
 * The work is bounded by the budget, not by the candidates' length: a block is tokenized only when it
 * reaches the budget check, and only until it no longer fits in what is left (its `tokens` is then the
 * count so far, already more than was left).
 *
 * Deterministic: the same input gives the same report, byte for byte. Ties in score order fall to the
 * generator rank, and a duplicate points at the first chosen chunk it repeats. Runs to the end without
 * yielding; a server calls `assembleContext`, which yields between steps.
 */
export function packContext(input: AssembleContextInput, tokenizer: Tokenizer): AssemblyReport {
  const steps = packSteps(input, tokenizer);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** The packing walk; each `yield` ends a step short enough to hold the event loop only briefly. */
function* packSteps(input: AssembleContextInput, tokenizer: Tokenizer): Generator<void, AssemblyReport> {
  const contract = parseAssemblyContract(input.contract);
  if (tokenizer.id !== contract.tokenizer) {
    throw new RangeError(`tokenizer ${tokenizer.id} given for a contract of ${contract.tokenizer}`);
  }
  const candidates = parseInput(assemblyCandidatesSchema, input.candidates, 'candidates');
  const digests: string[] = [];
  for (const candidate of candidates) {
    digests.push(textDigest(candidate.text));
    yield;
  }
  const bindings = candidates.map((candidate, index) => ({
    entryId: candidate.entryId,
    contentDigest: digests[index]!,
  }));
  const ordered = verifyRerankEvidence(input.query, bindings, input.evidence, input.expect);

  const head = frameHead();
  const tail = frameTail();
  const frameTokens = frameTokenCount(tokenizer);
  requireFrameFits(contract, frameTokens);

  const facts = (index: number) => {
    const candidate = candidates[index]!;
    return {
      ref: index + 1,
      memoryRef: { ...candidate.memoryRef },
      entryId: candidate.entryId,
      entryVersionId: candidate.entryVersionId,
      source: candidate.source,
      contentDigest: digests[index]!,
      ...(ordered.scores ? { score: ordered.scores[index]! } : {}),
    };
  };

  const chosen: (SelectedChunk & { block: string })[] = [];
  const omitted: OmittedCandidate[] = [];
  const perSource = new Map<string, number>();
  const kept: { index: number; shingles: Float64Array | undefined }[] = [];
  const shingler = new CompactShingler();
  const byDigest = new Map<string, number>();
  const near = contract.duplicates.near;
  let used = frameTokens;

  for (const [position, index] of ordered.order.entries()) {
    const candidate = candidates[index]!;
    const evidenceRank = position + 1;
    const omit = (reason: OmissionReason, extra: Partial<OmittedCandidate> = {}) =>
      omitted.push({ ...facts(index), reason, evidenceRank, ...extra });

    const exact = byDigest.get(digests[index]!);
    if (exact !== undefined) {
      omit('duplicate_of', { duplicateOf: candidates[exact]!.entryVersionId, duplicateMatch: 'exact' });
      continue;
    }
    let shingles: Float64Array | undefined;
    if (near) {
      shingles = shingler.of(candidate.text);
      yield;
      const nearMatch = yield* firstSimilarKept(shingles, kept, near.threshold);
      if (nearMatch) {
        omit('duplicate_of', {
          duplicateOf: candidates[nearMatch.index]!.entryVersionId,
          duplicateMatch: 'near',
          similarity: nearMatch.similarity,
        });
        continue;
      }
    }
    const fromSource = perSource.get(candidate.source) ?? 0;
    if (chosen.length >= contract.maxChunks) {
      omit('chunk_limit');
      continue;
    }
    if (fromSource >= contract.perSourceCap) {
      omit('source_cap');
      continue;
    }
    const block = chunkBlock(index + 1, candidate.source, candidate.text);
    const room = contract.tokenBudget - used;
    const tokens = yield* countUpTo(tokenizer, block, room);
    if (tokens > room) {
      omit('token_budget', { tokens });
      continue;
    }
    used += tokens;
    perSource.set(candidate.source, fromSource + 1);
    chosen.push({ ...facts(index), evidenceRank, tokens, block });
    byDigest.set(digests[index]!, index);
    kept.push({ index, shingles });
  }
  for (const index of ordered.notSelected) omitted.push({ ...facts(index), reason: 'not_selected' });

  const written =
    contract.ordering === 'generator_order' ? [...chosen].sort((a, b) => a.ref - b.ref) : chosen;
  const context = head + written.map((chunk) => chunk.block).join('') + tail;
  // The whole text counted again, cut elsewhere than at the blocks: checks that the pieces add up.
  const totalTokens = yield* countUpTo(tokenizer, context, Number.POSITIVE_INFINITY);
  if (totalTokens !== used) {
    // The frame is built so that piece counts add up (see frame.ts); a difference is a defect here.
    throw new Error(`context assembly defect: ${totalTokens} tokens counted, ${used} accounted`);
  }
  const omissionCounts = Object.fromEntries(OMISSION_REASONS.map((reason) => [reason, 0])) as Record<
    OmissionReason,
    number
  >;
  for (const omission of omitted) omissionCounts[omission.reason] += 1;

  return {
    contract,
    contractDigest: textDigest(JSON.stringify(contract)),
    evidence: {
      kind: ordered.kind,
      policyId: input.evidence.policyId,
      modelId: input.evidence.modelId,
      queryDigest: input.evidence.queryDigest,
      candidateSetDigest: input.evidence.candidateSetDigest,
    },
    selected: written.map(({ block: _block, ...chunk }) => chunk),
    omitted,
    omissionCounts,
    totalTokens,
    frameTokens,
    context,
  };
}

/**
 * The token count of `text` when it is at most `limit`; otherwise a count of a prefix that is already
 * more than `limit` (counting stops there). One step per piece.
 */
function* countUpTo(tokenizer: Tokenizer, text: string, limit: number): Generator<void, number> {
  let total = 0;
  for (const piece of tokenizer.pieces(text, PIECE_CHARS)) {
    total += tokenizer.count(piece);
    if (total > limit) return total;
    yield;
  }
  return total;
}

/** The first chosen chunk at or above the threshold, in choice order (stable: not the most similar one). */
function* firstSimilarKept(
  shingles: Float64Array,
  kept: readonly { index: number; shingles: Float64Array | undefined }[],
  threshold: number,
): Generator<void, { index: number; similarity: number } | undefined> {
  for (const earlier of kept) {
    const value = compactSimilarity(shingles, earlier.shingles!);
    if (value >= threshold) return { index: earlier.index, similarity: value };
    yield;
  }
  return undefined;
}
