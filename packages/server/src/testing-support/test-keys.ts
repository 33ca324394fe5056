import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashApiKey } from '../auth/api-keys.js';

/** The keys of the server tests; the secret of each is `<id>-secret`. */
export const TEST_KEYS = [
  { id: 'alpha-all', scopes: ['alpha'], permissions: ['read', 'write', 'explain'] },
  { id: 'alpha-reader', scopes: ['alpha'], permissions: ['read'] },
  { id: 'alpha-purger', scopes: ['alpha'], permissions: ['read', 'purge'] },
  { id: 'beta-all', scopes: ['beta'], permissions: ['read', 'write', 'explain', 'purge'] },
  { id: 'alpha-beta', scopes: ['alpha', 'beta'], permissions: ['read', 'write', 'explain'] },
  { id: 'alpha-beta-reader', scopes: ['alpha', 'beta'], permissions: ['read'] },
  {
    id: 'throttled',
    scopes: ['alpha'],
    permissions: ['read'],
    rate_limit: { requests: 2, window_seconds: 1 },
  },
];

export const secretOf = (id: string) => `${id}-secret`;

/** Writes the test keys (hashed, as the keys file format wants them) to `dir/keys.json`. */
export function writeTestKeysFile(dir: string): string {
  const file = join(dir, 'keys.json');
  writeFileSync(
    file,
    JSON.stringify({ keys: TEST_KEYS.map((key) => ({ ...key, sha256: hashApiKey(secretOf(key.id)) })) }),
  );
  return file;
}
