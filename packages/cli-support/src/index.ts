export {
  ArgsError,
  argsErrorOfParseArgs,
  type Flag,
  type FlagSpec,
  parseCommandLine,
  readFlags,
} from './command-line.js';
export { type LatencySummary, mean, percentile, summarizeLatencies } from './percentiles.js';
export { createProgressBar } from './progress-bar.js';
