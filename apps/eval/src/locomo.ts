import { performance } from 'node:perf_hooks';
import { ArgsError, parseArgs, USAGE } from './args.js';
import { describe, runLocomoEval } from './harness.js';

async function main(): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof ArgsError)) throw error;
    console.error(`${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (parsed === 'help') {
    console.log(USAGE);
    return 0;
  }
  const args = parsed;
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
