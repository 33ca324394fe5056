import { afterEach, describe, expect, it, vi } from 'vitest';
import { runServerCommand } from './run-server-command.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Runs the command, returning its exit code and what it printed on stderr. */
async function run(argv: string[], env: Record<string, string> = {}) {
  const printed: string[] = [];
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    printed.push(args.join(' '));
  });
  const code = await runServerCommand(argv, env);
  return { code, stderr: printed.join('\n') };
}

describe('runServerCommand: refusing to start', () => {
  it.each([
    [['--port', 'eighty'], {}, 'POWERCONTEXT_SERVER_PORT: must be an integer'],
    [
      [],
      { POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED: 'yes' },
      'POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED: must be true or false',
    ],
    [
      ['--api-keys-file', '/nonexistent/keys.json'],
      {},
      'POWERCONTEXT_SERVER_API_KEYS_FILE: cannot read /nonexistent/keys.json (ENOENT)',
    ],
    [
      [],
      { POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED: 'true' },
      'POWERCONTEXT_SERVER_INFERENCE_GENERATION_MODEL: is required when',
    ],
  ])('exits 1 for %j %j with the configuration error', async (argv, env, message) => {
    const { code, stderr } = await run(
      ['--port', '0', '--data-dir', '/nonexistent/never-opened', ...argv],
      env,
    );
    expect(code).toBe(1);
    expect(stderr).toContain(`powercontext server: configuration_error: ${message}`);
  });

  it('exits 2 with the usage for an unknown flag or a flag without its value', async () => {
    for (const argv of [['--colour', 'blue'], ['--port']]) {
      const { code, stderr } = await run(argv);
      expect(code).toBe(2);
      expect(stderr).toContain('Usage: powercontext server run');
    }
  });
});
