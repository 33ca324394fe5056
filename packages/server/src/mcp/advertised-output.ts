import { z } from 'zod';

// What tools/list says a tool answers. Every agent loads the tool list into its context at each start,
// so the output schemas there name each field and its type two levels deep and stop: a nested object
// below that is just an object, and no UUID pattern or integer range is repeated (RFC 0005, "Tool
// list size"). The full shapes are the HTTP v1 response schemas (tool-schemas.ts, openapi.json);
// results still follow them exactly, and the MCP tests parse every result with them.

type AnyZod = z.core.$ZodType;

/** How many levels of object properties the advertised schema names. */
const ADVERTISED_DEPTH = 1;

/** The advertised, shallow form of a v1 response schema: same fields, types, nullability and enums. */
export function advertisedOutput(schema: z.ZodObject): z.ZodObject {
  return shallowObject(schema, ADVERTISED_DEPTH);
}

function shallowObject(schema: z.ZodObject, depth: number): z.ZodObject {
  if (depth === 0) return z.looseObject({});
  const shape: Record<string, z.ZodType> = {};
  for (const [name, field] of Object.entries(schema.shape)) shape[name] = shallow(field, depth - 1);
  return z.looseObject(shape);
}

function shallow(field: AnyZod, depth: number): z.ZodType {
  const def = field._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  switch (def.type) {
    case 'optional':
      return shallow(def.innerType as AnyZod, depth).optional();
    case 'nullable':
      return shallow(def.innerType as AnyZod, depth).nullable();
    case 'object':
      return shallowObject(field as z.ZodObject, depth);
    case 'array':
      return z.array(depth === 0 ? z.unknown() : shallow(def.element as AnyZod, depth));
    case 'string':
      return z.string();
    case 'number':
      return z.number();
    case 'boolean':
      return z.boolean();
    case 'null':
      return z.null();
    case 'enum':
      return z.enum(Object.values(def.entries as Record<string, string>) as [string, ...string[]]);
    case 'literal':
      return z.literal((def.values as z.core.util.Literal[])[0]!);
    case 'union':
      return z.union((def.options as AnyZod[]).map((option) => shallow(option, depth)));
    default:
      return z.unknown();
  }
}
