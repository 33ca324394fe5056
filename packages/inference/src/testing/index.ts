export {
  type ConformanceCheck,
  type ConformanceOutcome,
  type ConformanceSuite,
  ConformanceViolation,
  conform,
  registerConformanceSuite,
  runConformanceSuite,
  settleWithin,
  shown,
} from './conformance.js';
export { conformAbort, conformInferenceError, conformTokens, rejectionOf } from './expect-failure.js';
export {
  describeRelevanceScorerConformance,
  type RelevanceScorerConformanceOptions,
  relevanceScorerConformanceSuite,
  runRelevanceScorerConformance,
  type ScorerBackend,
} from './relevance-scorer-conformance.js';
export { boundedCall, untilAborted } from './scripted-call.js';
export {
  createScriptedGenerator,
  type ScriptedGenerator,
  type ScriptedGeneratorOptions,
} from './scripted-generator.js';
export {
  createScriptedRelevanceScorer,
  type ScriptedRelevanceScorer,
  type ScriptedRelevanceScorerOptions,
} from './scripted-relevance-scorer.js';
export {
  describeStructuredGeneratorConformance,
  type GeneratorBackend,
  runStructuredGeneratorConformance,
  type StructuredGeneratorConformanceOptions,
  structuredGeneratorConformanceSuite,
} from './structured-generator-conformance.js';
