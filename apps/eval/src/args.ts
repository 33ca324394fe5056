import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ArgsError, readFlags } from '@powercontext/cli-support';

export type SearchMode = 'fts' | 'vector' | 'hybrid';
export type UnitKind = 'turn' | 'observation';
export type RerankPolicy = 'listwise' | 'decision';
export type JudgePolicy = 'strict' | 'topical';
/** Which lexical index projections to evaluate: the configured neighbour context, none, or both. */
export type LexicalContextRuns = 'both' | 'on' | 'off';

export const SEARCH_MODES: readonly SearchMode[] = ['fts', 'vector', 'hybrid'];
/** The search channels `--channels` may name (RFC 0013), in fusion order; fts and vector always run. */
export const CHANNEL_NAMES = ['fts', 'vector', 'entity', 'graph'] as const;
export type ChannelName = (typeof CHANNEL_NAMES)[number];
export const DEFAULT_CHANNELS: readonly ChannelName[] = ['fts', 'vector'];
/** The largest search limit the runtime accepts (SEARCH_LIMIT_MAX): the coarse curve's depth. */
export const COARSE_DEPTH = 50;

export interface EvalArgs {
  data: string;
  out: string;
  modes: SearchMode[];
  unit: UnitKind;
  /** Rerank candidate pool size (POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_CANDIDATE_LIMIT) and oracle pool. */
  topK: number;
  /** The limit of the user-facing search. */
  finalK: number;
  rerank: 'none' | RerankPolicy;
  generationModel?: string;
  baseUrl?: string;
  peers: boolean;
  /** Conversation ids to evaluate; undefined = all of the file. */
  conversations?: string[];
  answerModel?: string;
  judgeModel?: string;
  judgePolicy: JudgePolicy;
  /** Token budget B of context assembly; when set, every measured powercontext run reports assembly retention. */
  assemblyBudget?: number;
  lexicalContext: LexicalContextRuns;
  /**
   * `--channels`: the channels to compare (fts and vector, plus entity and/or graph). The no-rerank
   * runs are measured with the default channels, with each optional one added alone, and with all of
   * them; undefined: the runtime's configured channels only.
   */
  channels?: ChannelName[];
}

/** The repository root: apps/eval/{src,dist}/ are three levels below it. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export const DEFAULT_ARGS: EvalArgs = {
  data: path.resolve(REPO_ROOT, '../shared/locomo/locomo-dev.json'),
  out: path.resolve(REPO_ROOT, 'eval-results/locomo'),
  modes: ['hybrid'],
  unit: 'turn',
  topK: 30,
  finalK: 10,
  rerank: 'none',
  peers: false,
  judgePolicy: 'strict',
  lexicalContext: 'both',
};

export const USAGE = `Usage: pnpm eval:locomo [options]
  --data FILE               LoCoMo JSON file (default <repo>/../shared/locomo/locomo-dev.json; never copy it into the repo)
  --out DIR                 output directory for summary.json, summary.md, recall.svg (default <repo>/eval-results/locomo)
  --mode MODE               fts, vector, hybrid or all (default hybrid)
  --unit UNIT               turn (one entry per dialog turn) or observation (the dataset's observation facts) (default turn)
  --top-k N                 rerank candidate pool size and oracle pool, 1..${COARSE_DEPTH} (default 30)
  --final-k N               limit of the user-facing search, 1..${COARSE_DEPTH} (default 10)
  --rerank POLICY           none, listwise (alias llm) or decision (default none); selected through runtime configuration
  --generation-model SPEC   openai:<model> or openai-compatible:<model> for reranking
                            (default: POWERCONTEXT_SERVER_INFERENCE_GENERATION_MODEL from the environment)
  --base-url URL            OpenAI-compatible base URL (default: POWERCONTEXT_SERVER_INFERENCE_BASE_URL)
  --peers                   also run the peer systems (MiniSearch, Orama) on the same units and questions
  --conversations LIST      comma-separated conversation ids, e.g. conv-26,conv-30 (default all)
  --answer-model SPEC       answer stage: openai:<model> or openai-compatible:<model> answers each question from
                            each run's final hits (exact match, token F1, BLEU-1); without it the stage is skipped
  --judge-model SPEC        answer stage: the LLM judge's model (default: no judge)
  --judge-policy POLICY     the judge's grading policy, strict or topical (default strict)
                            (base URL: --base-url or POWERCONTEXT_SERVER_INFERENCE_BASE_URL; API key:
                            POWERCONTEXT_SERVER_INFERENCE_API_KEY; timeout and attempts: ..._GENERATION_TIMEOUT_SECONDS,
                            ..._GENERATION_MAX_REQUESTS)
  --assembly-budget TOKENS  pack each question's final hits into a context of at most TOKENS (o200k_base) and report
                            assembly retention per run (default: no assembly)
  --lexical-context RUNS    both (default): no-rerank runs with the configured neighbour context and without it,
                            each over a store of its own; on: with it only; off: without it only
  --channels LIST           search channels to compare, e.g. fts,vector,entity,graph: the no-rerank runs of the
                            primary store with fts,vector, with each of entity and graph added, and with all listed
                            (RFC 0013; default: the configured POWERCONTEXT_SERVER_RUNTIME_MEMORY_SEARCH_CHANNELS)
  --help                    print this help`;

export { ArgsError };

function limitValue(flag: string, value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > COARSE_DEPTH) {
    throw new ArgsError(`${flag} must be an integer within 1..${COARSE_DEPTH}, got "${value}"`);
  }
  return Number(value);
}

function modes(value: string): SearchMode[] {
  if (value === 'all') return [...SEARCH_MODES];
  if ((SEARCH_MODES as readonly string[]).includes(value)) return [value as SearchMode];
  throw new ArgsError(`--mode accepts fts, vector, hybrid or all, got "${value}"`);
}

function rerank(value: string): EvalArgs['rerank'] {
  if (value === 'llm') return 'listwise';
  if (value === 'none' || value === 'listwise' || value === 'decision') return value;
  throw new ArgsError(`--rerank accepts none, listwise (or llm) or decision, got "${value}"`);
}

function modelSpec(flag: string, value: string): string {
  if (!/^(openai|openai-compatible):.+$/.test(value)) {
    throw new ArgsError(`${flag} must be openai:<model> or openai-compatible:<model>, got "${value}"`);
  }
  return value;
}

function list(flag: string, value: string): string[] {
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.length === 0) throw new ArgsError(`${flag} must name at least one conversation`);
  return [...new Set(items)];
}

function channels(value: string): ChannelName[] {
  const names = value.split(',').map((name) => name.trim());
  const known = (name: string): name is ChannelName => (CHANNEL_NAMES as readonly string[]).includes(name);
  if (!names.every(known) || !names.includes('fts') || !names.includes('vector')) {
    throw new ArgsError(`--channels must list fts,vector and any of entity, graph, got "${value}"`);
  }
  return CHANNEL_NAMES.filter((name) => names.includes(name));
}

/**
 * The channel sets `--channels` compares: the default two, each optional channel added alone, and all
 * of the listed ones together when they are two or more. `fts,vector,entity,graph` gives four sets.
 */
export function channelSets(listed: readonly ChannelName[]): ChannelName[][] {
  const optional = listed.filter((name) => !DEFAULT_CHANNELS.includes(name));
  const sets = [[...DEFAULT_CHANNELS], ...optional.map((name) => [...DEFAULT_CHANNELS, name])];
  if (optional.length > 1) sets.push([...DEFAULT_CHANNELS, ...optional]);
  return sets;
}

const BOOLEAN_FLAGS = new Set(['--peers']);
const VALUE_FLAGS = [
  '--answer-model',
  '--assembly-budget',
  '--base-url',
  '--channels',
  '--conversations',
  '--data',
  '--final-k',
  '--generation-model',
  '--judge-model',
  '--judge-policy',
  '--lexical-context',
  '--mode',
  '--out',
  '--rerank',
  '--top-k',
  '--unit',
];

/** Parses `--flag value` and `--flag=value`; a leading `--` (as pnpm may pass it) is skipped. */
export function parseArgs(argv: readonly string[]): EvalArgs | 'help' {
  const args: EvalArgs = { ...DEFAULT_ARGS, modes: [...DEFAULT_ARGS.modes] };
  const flags = readFlags(argv, { values: VALUE_FLAGS, booleans: [...BOOLEAN_FLAGS] });
  if (flags === 'help') return 'help';
  for (const { flag, value } of flags) {
    switch (flag) {
      case '--peers':
        args.peers = true;
        break;
      case '--data':
        if (value === '') throw new ArgsError('--data must not be empty');
        args.data = path.resolve(value);
        break;
      case '--out':
        if (value === '') throw new ArgsError('--out must not be empty');
        args.out = path.resolve(value);
        break;
      case '--mode':
        args.modes = modes(value);
        break;
      case '--unit':
        if (value !== 'turn' && value !== 'observation') {
          throw new ArgsError(`--unit accepts turn or observation, got "${value}"`);
        }
        args.unit = value;
        break;
      case '--top-k':
        args.topK = limitValue(flag, value);
        break;
      case '--final-k':
        args.finalK = limitValue(flag, value);
        break;
      case '--rerank':
        args.rerank = rerank(value);
        break;
      case '--generation-model':
        args.generationModel = modelSpec(flag, value);
        break;
      case '--base-url':
        if (!/^https?:\/\/.+/.test(value)) throw new ArgsError('--base-url must be an http(s) URL');
        args.baseUrl = value;
        break;
      case '--conversations':
        args.conversations = list(flag, value);
        break;
      case '--answer-model':
        args.answerModel = modelSpec(flag, value);
        break;
      case '--judge-model':
        args.judgeModel = modelSpec(flag, value);
        break;
      case '--judge-policy':
        if (value !== 'strict' && value !== 'topical') {
          throw new ArgsError(`--judge-policy accepts strict or topical, got "${value}"`);
        }
        args.judgePolicy = value;
        break;
      case '--assembly-budget':
        if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 1_000_000) {
          throw new ArgsError(`--assembly-budget must be an integer within 1..1000000, got "${value}"`);
        }
        args.assemblyBudget = Number(value);
        break;
      case '--channels':
        args.channels = channels(value);
        break;
      case '--lexical-context':
        if (value !== 'both' && value !== 'on' && value !== 'off') {
          throw new ArgsError(`--lexical-context accepts both, on or off, got "${value}"`);
        }
        args.lexicalContext = value;
        break;
      default:
        throw new ArgsError(`unknown option ${flag}`);
    }
  }
  return args;
}
