#!/usr/bin/env node
import { MEMORY_SUBCOMMANDS } from './cli/memory-args.js';
import { runMemoryCommand } from './cli/memory-command.js';
import { runMcpStdio } from './mcp/stdio.js';
import { runServerCommand, SERVER_RUN_USAGE } from './server/run-server-command.js';

const USAGE = `Usage: powercontext <command>

  server run          serve the HTTP v1 API and the MCP endpoint
  mcp                 serve MCP over stdio
  memory <command>    ${MEMORY_SUBCOMMANDS.join(', ')}

Run a command with --help for its options.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'server':
      if (rest[0] === 'run') return runServerCommand(rest.slice(1));
      console.error(
        rest[0] === undefined
          ? SERVER_RUN_USAGE
          : `unknown command "server ${rest[0]}"\n\n${SERVER_RUN_USAGE}`,
      );
      return 2;
    case 'mcp':
      return runMcpStdio(rest);
    case 'memory':
      return runMemoryCommand(rest);
    case '--help':
    case '-h':
      console.log(USAGE);
      return 0;
    default:
      console.error(command === undefined ? USAGE : `unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

process.exit(await main(process.argv.slice(2)));
