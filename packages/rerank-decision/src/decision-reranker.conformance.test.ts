import { createScriptedDecisionModel, untilAborted } from '@powercontext/decision-model/testing';
import { describeRerankerConformance, type RerankBackend } from '@powercontext/memory-core/testing';
import { createDecisionMemoryReranker } from './decision-reranker.js';

// The MemoryReranker conformance suite over the decision reranker, with the scripted decision model
// playing the backend: yes for a relevant subject, no for the rest.
function decisionRerankerOver(backend: RerankBackend, concurrency: number) {
  const decisionModel = createScriptedDecisionModel({
    decide(request, signal) {
      if (backend.kind === 'fail') throw new Error('HTTP 500');
      if (backend.kind === 'hang') return untilAborted(signal);
      return backend.keeps(request.subject) ? 'yes' : 'no';
    },
  });
  return createDecisionMemoryReranker({ decisionModel, concurrency });
}

describeRerankerConformance('decision reranker (scripted decision model, sequential)', {
  create: (backend) => decisionRerankerOver(backend, 1),
});
describeRerankerConformance('decision reranker (scripted decision model, 4 calls ahead)', {
  create: (backend) => decisionRerankerOver(backend, 4),
});
