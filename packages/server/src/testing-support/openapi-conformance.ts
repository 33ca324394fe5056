import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { OPENAPI_PATH, REPOSITORY_ROOT } from '../openapi/openapi-document.js';
import type { CallResult } from './http-call.js';

// ajv-formats is CommonJS: its default export arrives wrapped under ESM interop.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

type PathsDoc = Record<
  string,
  Record<string, { responses: Record<string, { content?: { 'application/json'?: { schema: unknown } } }> }>
>;
const document = parse(readFileSync(join(REPOSITORY_ROOT, OPENAPI_PATH), 'utf8')) as {
  paths: PathsDoc;
  components: { schemas: Record<string, unknown> };
};
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
ajv.addKeyword({ keyword: 'example' });
ajv.addKeyword({ keyword: 'x-limits' });
ajv.addSchema({
  $id: 'powercontext',
  $defs: JSON.parse(
    JSON.stringify(document.components.schemas).replaceAll('#/components/schemas/', '#/$defs/'),
  ),
});
const validators = new Map<string, ValidateFunction>();

/**
 * Why a JSON response breaks the committed OpenAPI document (undeclared status, or a body its schema
 * refuses); undefined when it conforms.
 */
export function openapiViolation(
  method: 'GET' | 'POST',
  path: string,
  response: CallResult<unknown>,
): string | undefined {
  const declaration = document.paths[path]?.[method.toLowerCase()]?.responses[String(response.status)];
  const schema = declaration?.content?.['application/json']?.schema;
  if (!schema) return `${method} ${path} ${response.status} declares no JSON body in ${OPENAPI_PATH}`;
  const text = JSON.stringify(schema).replaceAll('#/components/schemas/', 'powercontext#/$defs/');
  let validate = validators.get(text);
  if (!validate) {
    validate = ajv.compile(JSON.parse(text));
    validators.set(text, validate);
  }
  return validate(response.json) ? undefined : ajv.errorsText(validate.errors);
}
