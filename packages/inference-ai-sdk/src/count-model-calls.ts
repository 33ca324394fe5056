/**
 * A view of `model` that reports every `doEmbed` call before forwarding it. Each call is one request
 * to the provider, so counting them tells how many requests were sent, retries included.
 * Everything else reads through to the model itself (getters run with the model as `this`).
 */
export function countModelCalls<M extends object>(model: M, onCall: () => void): M {
  return new Proxy(model, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (property !== 'doEmbed') return value.bind(target);
      return (...args: unknown[]) => {
        onCall();
        return value.apply(target, args);
      };
    },
  });
}
