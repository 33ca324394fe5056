export {
  type ChatCompletionUsage,
  chatCompletionAnswer,
  closedPort,
  embeddingsAnswer,
  type LoopbackServer,
  type RecordedRequest,
  type Responder,
  scripted,
  sendJson,
  startLoopbackServer,
} from './loopback-provider.js';
export {
  type RerankAnswerOptions,
  type RerankRequestBody,
  type RerankResult,
  rerankAnswer,
  rerankResponder,
  sharedWordScore,
} from './loopback-rerank.js';
