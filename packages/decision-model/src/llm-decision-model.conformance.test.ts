import { createAiSdkStructuredGenerator, createLanguageModel } from '@powercontext/inference-ai-sdk';
import {
  chatCompletionAnswer,
  type LoopbackServer,
  type Responder,
  sendJson,
  startLoopbackServer,
} from '@powercontext/inference-ai-sdk/testing';
import { createLlmDecisionModel } from './llm-decision-model.js';
import { type DecisionBackend, describeDecisionModelConformance } from './testing/index.js';

// The DecisionModel conformance suite over the LLM backend, the AI SDK generator and a loopback
// server speaking the OpenAI chat-completions protocol.
let servers: LoopbackServer[] = [];

function responderFor(backend: DecisionBackend): Responder {
  switch (backend.kind) {
    case 'answer': {
      const content = JSON.stringify({
        outcome: backend.outcome,
        ...(backend.rationale === undefined ? {} : { rationale: backend.rationale }),
      });
      const { tokens } = backend;
      const usage = tokens
        ? {
            prompt_tokens: tokens.input,
            completion_tokens: tokens.output,
            total_tokens: tokens.input + tokens.output,
          }
        : null;
      return (request, response) => chatCompletionAnswer(response, request, content, usage);
    }
    case 'fail':
      return (_request, response) =>
        sendJson(
          response,
          500,
          { error: { message: 'overloaded', type: 'server_error' } },
          { 'retry-after-ms': '5' },
        );
    case 'hang':
      return () => {};
  }
}

describeDecisionModelConformance('LLM decision model over loopback HTTP', {
  async create(backend, { timeoutMs }) {
    const server = await startLoopbackServer(responderFor(backend));
    servers.push(server);
    const generator = createAiSdkStructuredGenerator({
      model: createLanguageModel('openai-compatible:decider', { baseUrl: server.baseUrl }),
      timeoutSeconds: timeoutMs / 1000,
      maxRequests: 2,
    });
    return createLlmDecisionModel({ generator });
  },
  async cleanup() {
    await Promise.all(servers.map((server) => server.close()));
    servers = [];
  },
});
