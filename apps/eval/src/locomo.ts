import { performance } from 'node:perf_hooks';
import { parseCommandLine } from '@powercontext/cli-support';
import { parseArgs, USAGE } from './args.js';
import { describe, runLocomoEval } from './harness.js';

async function main(): Promise<number> {
  const args = parseCommandLine(parseArgs, USAGE);
  if (typeof args === 'number') return args;
  const started = performance.now();
  console.log(
    `LoCoMo evaluation: ${args.data}, unit ${args.unit}, modes ${args.modes.join(', ')}, ` +
      `final_k ${args.finalK}, top_k ${args.topK}, rerank ${args.rerank}${args.peers ? ', peers' : ''}`,
  );
  try {
    const outcome = await runLocomoEval(args);
    console.log(`\n${outcome.markdown}`);
    console.log(`Wrote ${outcome.files.join(', ')}`);
    console.log(`Run time ${((performance.now() - started) / 1000).toFixed(1)} s`);
    if (outcome.warnings.length > 0) console.log(`${outcome.warnings.length} warnings (see above)`);
    return outcome.failed ? 1 : 0;
  } catch (error) {
    console.error(`\nLoCoMo evaluation failed: ${describe(error)}`);
    return 1;
  }
}

process.exitCode = await main();
