import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { OPENAPI_PATH, REPOSITORY_ROOT, renderOpenApiYaml } from './openapi-document.js';

const target = join(REPOSITORY_ROOT, OPENAPI_PATH);
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, renderOpenApiYaml());
console.log(`wrote ${OPENAPI_PATH}`);
