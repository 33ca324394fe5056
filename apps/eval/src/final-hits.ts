import type { EvalContext } from './eval-context.js';
import type { EvalQuestion } from './locomo-data.js';
import type { EvalUnit } from './peer-system.js';

/**
 * Keeps the units a run returned as its final hits for one question, best first, for the answer
 * stage. Does nothing unless the answer stage will run (`context.finalHits` is set).
 */
export function keepFinalHits(
  context: Pick<EvalContext, 'finalHits'>,
  label: string,
  question: EvalQuestion,
  units: readonly EvalUnit[],
): void {
  const hits = context.finalHits;
  if (!hits) return;
  let ofRun = hits.get(label);
  if (!ofRun) {
    ofRun = new Map();
    hits.set(label, ofRun);
  }
  ofRun.set(question, [...units]);
}
