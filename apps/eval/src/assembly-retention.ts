import type { AssemblyReport, OmissionReason } from '@powercontext/runtime';
import { z } from 'zod';

/** The packing reasons counted (`not_selected` is the reranker's choice, not packing, and is left out). */
export const PACKING_REASONS = ['token_budget', 'chunk_limit', 'source_cap', 'duplicate_of'] as const;
type PackingReason = (typeof PACKING_REASONS)[number];

const count = z.int().min(0);
const reasonCounts = z.strictObject({
  token_budget: count,
  chunk_limit: count,
  source_cap: count,
  duplicate_of: count,
});

/** The additive `assembly` object of a measured run in summary.json. */
export const assemblyRunSchema = z.strictObject({
  /** The contract every question of the run was packed under. */
  contract: z.strictObject({
    version: z.string().min(1),
    token_budget: z.int().min(1),
    max_chunks: z.int().min(1),
    per_source_cap: z.int().min(1),
    near_duplicate_threshold: z.number().min(0).max(1).nullable(),
    tokenizer: z.string().min(1),
    contract_digest: z.string().min(1),
  }),
  questions: count,
  /** Questions whose final hits held at least one evidence turn: the denominator of retention. */
  questions_with_evidence: count,
  /** Mean over those questions of (evidence turns in the packed chunks) / (evidence turns in the final hits). */
  evidence_retention: z.number().min(0).max(1).optional(),
  mean_selected_chunks: z.number().min(0),
  mean_tokens: z.number().min(0),
  /** Final hits left out of the context, by reason, over all questions. */
  omissions: reasonCounts,
  /** Of those, the hits that held evidence of their question. */
  evidence_omissions: reasonCounts,
});
export type AssemblyRunJson = z.infer<typeof assemblyRunSchema>;

/**
 * Assembly retention of one run: for each question, which evidence turns of the final hits survive
 * packing under the contract, and why the hits that did not survive were left out.
 */
export class AssemblyRetention {
  readonly #retention: number[] = [];
  readonly #omissions = zeroCounts();
  readonly #evidenceOmissions = zeroCounts();
  #questions = 0;
  #selected = 0;
  #tokens = 0;
  #contract: AssemblyReport['contract'] | undefined;
  #contractDigest = '';

  /**
   * Adds one question. `turnsOf` gives the turn ids an entry covers; `finalEntryIds` are the hits the
   * search returned; `evidence` the question's evidence turn ids.
   */
  add(
    report: AssemblyReport,
    finalEntryIds: readonly string[],
    evidence: readonly string[],
    turnsOf: (entryId: string) => readonly string[],
  ): void {
    this.#contract ??= report.contract;
    this.#contractDigest = report.contractDigest;
    this.#questions += 1;
    this.#selected += report.selected.length;
    this.#tokens += report.totalTokens;
    const wanted = new Set(evidence);
    const evidenceIn = (entryIds: readonly string[]) =>
      new Set(entryIds.flatMap((entryId) => turnsOf(entryId).filter((turn) => wanted.has(turn))));
    const present = evidenceIn(finalEntryIds);
    const kept = evidenceIn(report.selected.map((chunk) => chunk.entryId));
    if (present.size > 0)
      this.#retention.push([...present].filter((turn) => kept.has(turn)).length / present.size);
    const finalSet = new Set(finalEntryIds);
    for (const omission of report.omitted) {
      if (!isPackingReason(omission.reason) || !finalSet.has(omission.entryId)) continue;
      this.#omissions[omission.reason] += 1;
      if (turnsOf(omission.entryId).some((turn) => present.has(turn)))
        this.#evidenceOmissions[omission.reason] += 1;
    }
  }

  build(): AssemblyRunJson | undefined {
    const contract = this.#contract;
    if (!contract) return undefined;
    const mean = (total: number) => round(this.#questions === 0 ? 0 : total / this.#questions);
    return {
      contract: {
        version: contract.version,
        token_budget: contract.tokenBudget,
        max_chunks: contract.maxChunks,
        per_source_cap: contract.perSourceCap,
        near_duplicate_threshold: contract.duplicates.near?.threshold ?? null,
        tokenizer: contract.tokenizer,
        contract_digest: this.#contractDigest,
      },
      questions: this.#questions,
      questions_with_evidence: this.#retention.length,
      ...(this.#retention.length > 0
        ? { evidence_retention: round(this.#retention.reduce((a, b) => a + b, 0) / this.#retention.length) }
        : {}),
      mean_selected_chunks: mean(this.#selected),
      mean_tokens: mean(this.#tokens),
      omissions: { ...this.#omissions },
      evidence_omissions: { ...this.#evidenceOmissions },
    };
  }
}

/** The contract the harness packs under: the budget given, M = final_k, no per-source cap in effect. */
export function evalAssemblyContract(tokenBudget: number, finalK: number) {
  // LoCoMo entries all cite their conversation as the source, so a source cap would cap the conversation.
  return { tokenBudget, maxChunks: finalK, perSourceCap: 100 };
}

/** The `## Context assembly` section of summary.md, or nothing when no run was assembled. */
export function assemblyMarkdown(runs: readonly { assembly?: AssemblyRunJson; label: string }[]): string[] {
  const assembled = runs.filter((run) => run.assembly);
  if (assembled.length === 0) return [];
  const lines = [
    '',
    '## Context assembly',
    '',
    'Of the evidence turns in the final hits, the share still in the context packed under the contract ' +
      '(mean over questions with evidence in their hits); omissions of final hits by reason, and in brackets those ' +
      'that held evidence.',
    '',
    '| run | budget | tokenizer | questions with evidence | retention | chunks | tokens | token_budget | chunk_limit | source_cap | duplicate_of |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const { label, assembly } of assembled) {
    const a = assembly!;
    const reason = (key: PackingReason) => `${a.omissions[key]} (${a.evidence_omissions[key]})`;
    lines.push(
      `| ${label} | ${a.contract.token_budget} | ${a.contract.tokenizer} | ${a.questions_with_evidence} | ` +
        `${a.evidence_retention === undefined ? '—' : (a.evidence_retention * 100).toFixed(1)} | ${a.mean_selected_chunks} | ${a.mean_tokens} | ` +
        `${PACKING_REASONS.map(reason).join(' | ')} |`,
    );
  }
  return lines;
}

function zeroCounts(): Record<PackingReason, number> {
  return { token_budget: 0, chunk_limit: 0, source_cap: 0, duplicate_of: 0 };
}

function isPackingReason(reason: OmissionReason): reason is PackingReason {
  return (PACKING_REASONS as readonly string[]).includes(reason);
}

const round = (value: number) => Math.round(value * 10_000) / 10_000;
