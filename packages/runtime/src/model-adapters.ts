/**
 * The adapters a configuration builds around models: the AI SDK embedder, the decision backend, the
 * rerankers and the write gate's decision handle. `createRuntime` loads this module only when the
 * configuration needs one of them (`opensStoreFirst` is false: a model, reranking or the write gate),
 * so the default set-up starts without the decision and rerank packages (rfcs/0001, "A library starts
 * as the command does"). Each builder throws the same ConfigurationError, at the same point of
 * `createRuntime`, as when they were loaded up front.
 */
import { createLlmDecisionModel, type DecisionModel } from '@powercontext/decision-model';
import type { RelevanceScorer } from '@powercontext/inference';
import type * as AiSdkAdapters from '@powercontext/inference-ai-sdk';
import type { Embedder, Logger, MemoryReranker } from '@powercontext/memory-core';
import { createCrossEncoderReranker } from '@powercontext/rerank-cross-encoder';
import { createDecisionMemoryReranker } from '@powercontext/rerank-decision';
import { createListwiseReranker } from '@powercontext/rerank-listwise';
import { ConfigurationError } from './configuration-error.js';
import { DECISION_ROLES, decisionHandleFor } from './decision-roles.js';
import { type RuntimeConfig, usesAiSdk } from './runtime-config.js';

export interface ModelAdapters {
  /** The embedder of a configured embedding model (`config.embedding.kind` is not `local`). */
  embedder(config: RuntimeConfig): Embedder;
  /** The decision backend from the environment, when a decision (or generation) model is configured. */
  decisionBackend(config: RuntimeConfig): DecisionModel | null;
  /**
   * The environment-driven reranker, only when enabled: listwise over the generation model (default),
   * the decision reranker over the rerank role's unwrapped decision handle, or the cross-encoder over
   * the rerank model (injected scorer first). Env-built rerankers carry the model spec as their `modelId`.
   */
  reranker(
    config: RuntimeConfig,
    decisionBackend: () => DecisionModel | null,
    logger: Logger,
    relevanceScorer: RelevanceScorer | undefined,
    decisionModelInjected: boolean,
  ): MemoryReranker | null;
  /** The write gate's role: its decision kind and its handle of the shared backend (fail-open, within its timeout). */
  writeGate(
    backend: DecisionModel,
    timeoutMs: number,
    logger: Logger,
  ): { decisionKind: string; decisionModel: DecisionModel };
}

/**
 * The AI SDK adapters (and with them `ai` and the provider packages) load only when the configuration
 * names a model: other configurations start without them.
 */
export async function loadModelAdapters(config: RuntimeConfig): Promise<ModelAdapters> {
  const aiSdk = usesAiSdk(config) ? await import('@powercontext/inference-ai-sdk') : undefined;
  const sdk = (): typeof AiSdkAdapters => {
    if (!aiSdk) throw new Error('internal: the AI SDK adapters were not loaded for this configuration');
    return aiSdk;
  };
  return {
    embedder: (config) => buildEmbedder(sdk(), config),
    decisionBackend: (config) => buildDecisionBackend(sdk, config),
    reranker: (config, decisionBackend, logger, relevanceScorer, decisionModelInjected) =>
      buildReranker(sdk, config, decisionBackend, logger, relevanceScorer, decisionModelInjected),
    writeGate: (backend, timeoutMs, logger) => ({
      decisionKind: DECISION_ROLES.writeGate.decisionKind,
      decisionModel: decisionHandleFor(DECISION_ROLES.writeGate, backend, { timeoutMs, logger }),
    }),
  };
}

function buildEmbedder(aiSdk: typeof AiSdkAdapters, config: RuntimeConfig): Embedder {
  const embedding = config.embedding;
  if (embedding.kind === 'local') throw new Error('internal: the local embedder needs no model adapter');
  const model = aiSdk.createEmbeddingModel(embedding.model, connection(config));
  return aiSdk.createAiSdkEmbedder({
    model,
    profile: {
      id: `${embedding.model}@${embedding.dimension}`,
      dimension: embedding.dimension,
      minCosine: embedding.minCosine,
    },
    timeoutSeconds: embedding.timeoutSeconds,
    maxRequests: embedding.maxRequests,
  });
}

function connection(config: RuntimeConfig) {
  return {
    ...(config.inference.baseUrl ? { baseUrl: config.inference.baseUrl } : {}),
    ...(config.inference.apiKey ? { apiKey: config.inference.apiKey.reveal() } : {}),
  };
}

function buildDecisionBackend(
  aiSdk: () => typeof AiSdkAdapters,
  config: RuntimeConfig,
): DecisionModel | null {
  const spec = config.decision.model;
  if (!spec) return null;
  const generator = aiSdk().createAiSdkStructuredGenerator({
    model: aiSdk().createLanguageModel(spec, connection(config)),
    timeoutSeconds: config.decision.timeoutSeconds,
    maxRequests: config.decision.maxRequests,
  });
  return createLlmDecisionModel({ generator });
}

function buildReranker(
  aiSdk: () => typeof AiSdkAdapters,
  config: RuntimeConfig,
  decisionBackend: () => DecisionModel | null,
  logger: Logger,
  relevanceScorer: RelevanceScorer | undefined,
  decisionModelInjected: boolean,
): MemoryReranker | null {
  if (!config.rerank.enabled) return null;
  if (config.rerank.policy === 'cross-encoder') {
    const scorer = relevanceScorer ?? buildRelevanceScorer(aiSdk, config);
    return createCrossEncoderReranker({
      scorer,
      ...(config.rerank.minScore === undefined ? {} : { minScore: config.rerank.minScore }),
    });
  }
  if (config.rerank.policy === 'decision') {
    const backend = decisionBackend();
    if (!backend) {
      throw new ConfigurationError(
        'POWERCONTEXT_SERVER_INFERENCE_DECISION_MODEL',
        'is required when POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_POLICY=decision (or set the generation model, or inject a decision model)',
      );
    }
    const reranker = createDecisionMemoryReranker({
      decisionModel: decisionHandleFor(DECISION_ROLES.rerank, backend),
      concurrency: config.rerank.decisionConcurrency,
      logger,
    });
    return decisionModelInjected ? reranker : withModelId(reranker, config.decision.model);
  }
  const spec = config.generation.model;
  if (!spec) {
    throw new ConfigurationError(
      'POWERCONTEXT_SERVER_INFERENCE_GENERATION_MODEL',
      'is required when POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED=true and no reranker is injected',
    );
  }
  const generator = aiSdk().createAiSdkStructuredGenerator({
    model: aiSdk().createLanguageModel(spec, connection(config)),
    timeoutSeconds: config.generation.timeoutSeconds,
    maxRequests: config.generation.maxRequests,
  });
  return withModelId(createListwiseReranker({ generator }), spec);
}

/** The cross-encoder's rerank model from the environment; a start-up error when none is set. */
function buildRelevanceScorer(aiSdk: () => typeof AiSdkAdapters, config: RuntimeConfig): RelevanceScorer {
  const rerankModel = config.rerankModel;
  if (!rerankModel) {
    throw new ConfigurationError(
      'POWERCONTEXT_SERVER_INFERENCE_RERANK_MODEL',
      'is required when POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_POLICY=cross-encoder (or inject a relevance scorer or a reranker)',
    );
  }
  const separator = rerankModel.model.indexOf(':');
  return aiSdk().createAiSdkRelevanceScorer({
    model: aiSdk().createRerankEndpointModel({
      model: rerankModel.model.slice(separator + 1),
      baseUrl: rerankModel.baseUrl,
      ...(config.inference.apiKey ? { apiKey: config.inference.apiKey.reveal() } : {}),
    }),
    modelId: rerankModel.model,
    timeoutSeconds: rerankModel.timeoutSeconds,
    maxRequests: rerankModel.maxRequests,
  });
}

/** `reranker` declaring `modelId` (the spec it was built from), so traces and evidence name the model. */
function withModelId(reranker: MemoryReranker, modelId: string | undefined): MemoryReranker {
  if (modelId === undefined) return reranker;
  return {
    policyId: reranker.policyId,
    modelId,
    rerank: (query, candidates, limit, options) => reranker.rerank(query, candidates, limit, options),
  };
}
