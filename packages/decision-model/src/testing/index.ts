/** A model call that never answers until its signal aborts (for `decide` scripts that hang). */
export { untilAborted } from '@powercontext/inference/testing';
export {
  type DecisionBackend,
  type DecisionModelConformanceOptions,
  decisionModelConformanceSuite,
  describeDecisionModelConformance,
  runDecisionModelConformance,
} from './decision-model-conformance.js';
export {
  createScriptedDecisionModel,
  type ScriptedAnswer,
  type ScriptedDecisionModel,
  type ScriptedDecisionModelOptions,
} from './scripted-decision-model.js';
