import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestKey {
  id: string;
  scopes: string[] | '*';
  permissions: ('read' | 'write' | 'explain' | 'purge')[];
  rate_limit?: { requests: number; window_seconds: number };
  max_in_flight?: number;
}

/** Keys with fresh random secrets, written hashed to `dir/keys.json` as the keys file wants them. */
export function writeKeysFile(dir: string, keys: readonly TestKey[]) {
  const secrets = new Map(keys.map((key) => [key.id, `pcrel-${key.id}-${randomBytes(16).toString('hex')}`]));
  const file = join(dir, 'keys.json');
  writeFileSync(
    file,
    JSON.stringify({
      keys: keys.map((key) => ({
        ...key,
        sha256: createHash('sha256').update(secrets.get(key.id)!).digest('hex'),
      })),
    }),
  );
  return {
    file,
    secretOf(id: string): string {
      const secret = secrets.get(id);
      if (!secret) throw new Error(`no key ${id}`);
      return secret;
    },
    secrets: [...secrets.values()],
  };
}
