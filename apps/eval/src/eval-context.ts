import type { EvalArgs, SearchMode } from './args.js';
import type { Category, EvalQuestion } from './locomo-data.js';
import { type Metrics, roundMetrics } from './metrics.js';
import type { EvalUnit } from './peer-system.js';

/** Per-question results (ids and metrics only, never dataset text), written to questions.json. */
export interface QuestionRecord {
  conversation_id: string;
  qa_index: number;
  category: Category;
  evidence: string[];
  runs: Record<string, { final: Metrics; coarse: Metrics }>;
}

/** State shared by the runs of one evaluation. */
export interface EvalContext {
  args: EvalArgs;
  stream: NodeJS.WriteStream;
  warnings: string[];
  records: Map<EvalQuestion, QuestionRecord>;
  /** Entry ids of the plain search with limit max(top_k, final_k), per mode and question. */
  pools: Map<SearchMode, Map<EvalQuestion, string[]>>;
  /** Final hits per run label and question, kept only for the answer stage (see final-hits.ts). */
  finalHits?: Map<string, Map<EvalQuestion, EvalUnit[]>>;
}

export function warn(context: EvalContext, message: string): void {
  context.warnings.push(message);
  context.stream.write(`warning: ${message}\n`);
}

/** Keeps one run's metrics of one question for questions.json. */
export function record(
  context: EvalContext,
  question: EvalQuestion,
  label: string,
  final: Metrics,
  coarse: Metrics,
) {
  let entry = context.records.get(question);
  if (!entry) {
    entry = {
      conversation_id: question.conversationId,
      qa_index: question.index,
      category: question.category,
      evidence: question.evidence,
      runs: {},
    };
    context.records.set(question, entry);
  }
  entry.runs[label] = { final: roundMetrics(final), coarse: roundMetrics(coarse) };
}

export function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return `${error.name}${typeof code === 'string' ? ` (${code})` : ''}: ${error.message}`;
  }
  return String(error);
}
