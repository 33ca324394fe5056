import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../api-error.js';
import type { AppEnv } from '../app-env.js';
import { invalidMessage } from '../to-api-error.js';

const RULE = 'keys named __proto__ are not accepted';

/**
 * Refuses a JSON body that holds a key named `__proto__` anywhere (422 invalid_request naming the
 * field). JSON.parse keeps such a key as an own property, but the schema layer (zod records and
 * objects) skips it, so a metadata key `__proto__` would otherwise vanish without a word. Runs on
 * /v1/* and /mcp after the body limit; reads a copy of the body, so the route still reads it whole.
 */
export function rejectProtoKeys(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.method !== 'POST') return next();
    let text: string;
    try {
      text = await c.req.raw.clone().text();
    } catch {
      return next(); // the body limit or a broken upload: the route answers for it
    }
    // Cheap test first: the key is written plainly, or with \u escapes that JSON.parse decodes.
    if (!text.includes('__proto__') && !text.includes('\\u')) return next();
    const field = protoKeyPath(text);
    if (field !== undefined) {
      const issues = [{ field, rule: RULE }];
      throw new ApiError('invalid_request', invalidMessage(issues), { details: { issues } });
    }
    return next();
  };
}

/** The dotted path of the first `__proto__` key in the JSON `text`; undefined when none or not JSON. */
export function protoKeyPath(text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  // Without recursion: a body may nest far deeper than the stack allows.
  const pending: [unknown, string][] = [[value, '']];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, path] = next;
    if (current === null || typeof current !== 'object') continue;
    const at = (key: string | number) => (path === '' ? String(key) : `${path}.${key}`);
    if (Array.isArray(current)) {
      for (const [index, item] of current.entries()) pending.push([item, at(index)]);
      continue;
    }
    if (Object.hasOwn(current, '__proto__')) return at('__proto__');
    for (const [key, item] of Object.entries(current)) pending.push([item, at(key)]);
  }
  return undefined;
}
