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
