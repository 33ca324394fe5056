/** The model methods that each send one request to the provider (rerank included). */
const REQUEST_METHODS: ReadonlySet<PropertyKey> = new Set(['doEmbed', 'doGenerate', 'doStream', 'doRerank']);

/**
 * A view of `model` that reports every `doEmbed`, `doGenerate` or `doStream` call before forwarding
 * it. Each call is one request to the provider (the AI SDK retries by calling it again), so counting
 * them tells how many requests were sent, retries included. Everything else reads through to the
 * model itself (getters run with the model as `this`).
 */
export function countModelCalls<M extends object>(model: M, onCall: () => void): M {
  return new Proxy(model, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (!REQUEST_METHODS.has(property)) return value.bind(target);
      return (...args: unknown[]) => {
        onCall();
        return value.apply(target, args);
      };
    },
  });
}
