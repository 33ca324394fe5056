import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { API_ERROR_CODES } from '../http/api-error.js';
import {
  buildOpenApiDocument,
  OPENAPI_PATH,
  REPOSITORY_ROOT,
  renderOpenApiYaml,
} from './openapi-document.js';

describe('openapi/powercontext.yaml', () => {
  it('is exactly what the route schemas generate (run `pnpm openapi:generate` after changing them)', () => {
    const committed = readFileSync(join(REPOSITORY_ROOT, OPENAPI_PATH), 'utf8');
    expect(committed).toBe(renderOpenApiYaml());
  });

  it('is OpenAPI 3.1 with every route of HTTP v1 and the closed list of error codes', () => {
    const document = parse(readFileSync(join(REPOSITORY_ROOT, OPENAPI_PATH), 'utf8'));
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths).sort()).toEqual(
      [
        '/healthz',
        '/metrics',
        '/readyz',
        '/v1/capabilities',
        '/v1/scopes',
        '/v1/context/prepare',
        '/v1/memory/changes',
        '/v1/memory/export',
        '/v1/scopes/delete',
        '/v1/memory/entries/forget',
        '/v1/memory/entries/get',
        '/v1/memory/entries/list',
        '/v1/memory/entries/purge',
        '/v1/memory/entries/reactivate',
        '/v1/memory/entries/revise',
        '/v1/memory/remember',
        '/v1/memory/search',
        '/v1/memory/summary',
      ].sort(),
    );
    expect(document.components.schemas.ErrorResponse.properties.error.properties.code.enum).toEqual(
      API_ERROR_CODES,
    );
    expect(buildOpenApiDocument().components?.schemas?.SearchRequest).toBeDefined();
  });
});
