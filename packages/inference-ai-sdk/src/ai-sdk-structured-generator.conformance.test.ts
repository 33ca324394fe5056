import {
  describeStructuredGeneratorConformance,
  type GeneratorBackend,
} from '@powercontext/inference/testing';
import { createAiSdkStructuredGenerator } from './ai-sdk-structured-generator.js';
import { createLanguageModel } from './language-model.js';
import {
  chatCompletionAnswer,
  type LoopbackServer,
  type Responder,
  sendJson,
  startLoopbackServer,
} from './testing/loopback-provider.js';

// The StructuredGenerator conformance suite over the real adapter path: AI SDK provider -> fetch ->
// a loopback server speaking the OpenAI chat-completions protocol.
let servers: LoopbackServer[] = [];

function responderFor(backend: GeneratorBackend): Responder {
  switch (backend.kind) {
    case 'answer': {
      const { tokens } = backend;
      const usage = tokens
        ? {
            prompt_tokens: tokens.input,
            completion_tokens: tokens.output,
            total_tokens: tokens.input + tokens.output,
          }
        : null;
      return (request, response) => chatCompletionAnswer(response, request, backend.text, usage);
    }
    case 'fail':
      // retry-after-ms shortens the AI SDK's backoff before its second attempt.
      return (_request, response) =>
        sendJson(
          response,
          500,
          { error: { message: 'model crashed', type: 'server_error' } },
          { 'retry-after-ms': '5' },
        );
    case 'hang':
      return () => {};
  }
}

for (const spec of ['openai-compatible:conformance-model', 'openai:gpt-conformance']) {
  describeStructuredGeneratorConformance(`AI SDK generator (${spec}) over loopback HTTP`, {
    async create(backend, { timeoutMs }) {
      const server = await startLoopbackServer(responderFor(backend));
      servers.push(server);
      const model = createLanguageModel(spec, { baseUrl: server.baseUrl, apiKey: 'sk-test' });
      return createAiSdkStructuredGenerator({ model, timeoutSeconds: timeoutMs / 1000, maxRequests: 2 });
    },
    async cleanup() {
      await Promise.all(servers.map((server) => server.close()));
      servers = [];
    },
  });
}
