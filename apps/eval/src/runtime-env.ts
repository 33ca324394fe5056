import type { EvalArgs, RerankPolicy } from './args.js';

/**
 * The runtime environment of a run. The harness never constructs adapters: it selects the embedded
 * PGlite store (a temporary data dir), and reranking, through the runtime's documented settings.
 * Inference settings (models, base URL, API key, timeouts), rerank tuning and retrieval tuning (lexical
 * context weights, BM25 parameters, RRF weights, search channels) pass through from the caller's environment; the database URL never does, so every run is embedded and fresh.
 */
const PASSED_THROUGH =
  /^POWERCONTEXT_SERVER_(INFERENCE_|RUNTIME_MEMORY_(RERANK_|LEXICAL_|BM25_|RRF_|AUTHORITY_|SEARCH_CHANNELS$))/;

const RERANK_ENABLED = 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED';
const RERANK_POLICY = 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_POLICY';
const RERANK_CANDIDATE_LIMIT = 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_CANDIDATE_LIMIT';
const GENERATION_MODEL = 'POWERCONTEXT_SERVER_INFERENCE_GENERATION_MODEL';
const DECISION_MODEL = 'POWERCONTEXT_SERVER_INFERENCE_DECISION_MODEL';
const BASE_URL = 'POWERCONTEXT_SERVER_INFERENCE_BASE_URL';
export const LEXICAL_CONTEXT_WEIGHTS = 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_LEXICAL_CONTEXT_WEIGHTS';
export const SEARCH_CHANNELS = 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_SEARCH_CHANNELS';

export type RuntimeEnv = Record<string, string | undefined>;

function inherited(source: RuntimeEnv): RuntimeEnv {
  return Object.fromEntries(
    Object.entries(source).filter(([name, value]) => PASSED_THROUGH.test(name) && value !== undefined),
  );
}

function withModelFlags(env: RuntimeEnv, args: Pick<EvalArgs, 'generationModel' | 'baseUrl'>): RuntimeEnv {
  return {
    ...env,
    ...(args.generationModel ? { [GENERATION_MODEL]: args.generationModel } : {}),
    ...(args.baseUrl ? { [BASE_URL]: args.baseUrl } : {}),
  };
}

/** The coarse path: reranking off, whatever the caller's environment says. */
export function coarseRuntimeEnv(
  source: RuntimeEnv,
  dataDir: string,
  args: Pick<EvalArgs, 'generationModel' | 'baseUrl'>,
): RuntimeEnv {
  const env = withModelFlags(inherited(source), args);
  delete env[RERANK_POLICY];
  return { ...env, POWERCONTEXT_SERVER_DATA_DIR: dataDir, [RERANK_ENABLED]: 'false' };
}

/** Reranking on with the policy and a candidate pool of `topK`, over the same data dir. */
export function rerankRuntimeEnv(
  source: RuntimeEnv,
  dataDir: string,
  args: Pick<EvalArgs, 'generationModel' | 'baseUrl' | 'topK'>,
  policy: RerankPolicy,
): RuntimeEnv {
  return {
    ...withModelFlags(inherited(source), args),
    POWERCONTEXT_SERVER_DATA_DIR: dataDir,
    [RERANK_ENABLED]: 'true',
    [RERANK_POLICY]: policy,
    [RERANK_CANDIDATE_LIMIT]: String(args.topK),
  };
}

/** Why a rerank run cannot be measured, or undefined when a model is configured for the policy. */
export function missingRerankModel(env: RuntimeEnv, policy: RerankPolicy): string | undefined {
  const set = (name: string) => env[name] !== undefined && env[name] !== '';
  if (set(GENERATION_MODEL)) return undefined;
  if (policy === 'decision' && set(DECISION_MODEL)) return undefined;
  return policy === 'decision'
    ? `no model configured: pass --generation-model or set ${DECISION_MODEL} or ${GENERATION_MODEL}`
    : `no model configured: pass --generation-model or set ${GENERATION_MODEL}`;
}
