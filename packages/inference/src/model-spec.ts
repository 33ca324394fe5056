export type ModelProvider = 'openai' | 'openai-compatible';

/** A parsed `<provider>:<model>` string. */
export interface ModelSpec {
  provider: ModelProvider;
  model: string;
}

const PROVIDERS: readonly ModelProvider[] = ['openai', 'openai-compatible'];

const RULE =
  'a model spec is "<provider>:<model>" where provider is "openai" or "openai-compatible" and model is a ' +
  'non-empty name without spaces, e.g. "openai:gpt-4o-mini" or "openai-compatible:llama3"';

/**
 * Parses `openai:<model>` or `openai-compatible:<model>`. Only the first colon separates the
 * provider, so model names with tags such as `openai-compatible:llama3:8b` keep their colon.
 * Throws an Error that states the rule for anything else.
 */
export function parseModelSpec(spec: string): ModelSpec {
  const separator = spec.indexOf(':');
  if (separator < 0) throw invalid(spec, 'no ":" between provider and model');
  const provider = spec.slice(0, separator);
  const model = spec.slice(separator + 1);
  if (!isProvider(provider)) throw invalid(spec, `unknown provider "${provider}"`);
  if (model.length === 0) throw invalid(spec, 'the model name is empty');
  if (/\s/u.test(model)) throw invalid(spec, 'the model name contains whitespace');
  return { provider, model };
}

function isProvider(value: string): value is ModelProvider {
  return (PROVIDERS as readonly string[]).includes(value);
}

function invalid(spec: string, problem: string): Error {
  return new Error(`Invalid model spec ${JSON.stringify(spec)}: ${problem}; ${RULE}`);
}
