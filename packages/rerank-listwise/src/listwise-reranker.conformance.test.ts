import { createScriptedGenerator, untilAborted } from '@powercontext/inference/testing';
import { describeRerankerConformance, type RerankBackend } from '@powercontext/memory-core/testing';
import { createListwiseReranker } from './listwise-reranker.js';

// The MemoryReranker conformance suite over the listwise policy, with the scripted generator playing
// the model: it reads the candidates from the prompt's JSON block and lists the relevant ranks.
function candidatesOf(prompt: string): { rank: number; text: string }[] {
  return prompt
    .split('\n')
    .filter((line) => line.startsWith('  {'))
    .map((line) => JSON.parse(line.trim().replace(/,$/, '')) as { rank: number; text: string });
}

function listwiseOver(backend: RerankBackend) {
  const generator = createScriptedGenerator({
    answer(request, signal) {
      if (backend.kind === 'fail') throw new Error('connect ECONNREFUSED');
      if (backend.kind === 'hang') return untilAborted(signal);
      const ranks = candidatesOf(request.prompt).filter(({ text }) => backend.keeps(text));
      return JSON.stringify({ ranks: ranks.map(({ rank }) => rank) });
    },
  });
  return createListwiseReranker({ generator });
}

describeRerankerConformance('listwise reranker (scripted generator)', { create: listwiseOver });
