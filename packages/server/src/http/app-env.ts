import type { Runtime } from '@powercontext/runtime';
import type { Logger as PinoLogger } from 'pino';
import type { ApiKeyRecord } from '../auth/api-keys.js';
import type { KeyAdmission, Release } from '../auth/key-admission.js';
import type { Principal } from '../auth/principal.js';
import type { ServerMetrics } from '../metrics/metrics.js';

/** A write whose transaction has begun: from then on it may commit, whoever stops waiting for it. */
export interface StartedWrite {
  scopeId: string;
  /** The head it started from; if it commits, the changes after this revision show it. */
  headRevision: number;
  idempotencyKey: string | undefined;
}

/** What the request's writes have reached; the timeout reads it to say what the caller may assume. */
export interface WriteWatch {
  /** The first write of the request whose transaction began, if any. */
  started: StartedWrite | undefined;
}

/** Per-request values the middleware sets for the handlers. */
export interface AppVariables {
  requestId: string;
  principal: Principal;
  /** Aborts when the request times out or the client goes away. */
  signal: AbortSignal;
  /** Whether a write of the request has begun its transaction (set by the request timeout). */
  writeWatch?: WriteWatch;
  /** The error code answered, for the access log. */
  errorCode?: string;
  /** The scope the request was authorized for, once a route checked it (what an error may show). */
  scopeId?: string;
}

export interface AppEnv {
  Variables: AppVariables;
}

/** Without keys the server runs as the local principal and must be bound to loopback only. */
export type AuthMode = { kind: 'keys'; keys: readonly ApiKeyRecord[] } | { kind: 'local' };

/** The MCP Streamable HTTP handler the /mcp route delegates to (web-standard Request/Response). */
export type McpHttpHandler = (
  request: Request,
  context: {
    runtime: Runtime;
    principal: Principal;
    /** The JSON-RPC body, already read and checked by the route. */
    parsedBody: unknown;
    /** Charges one tool call to the caller's key (rate limit and in-flight slot); throws `rate_limited`. */
    admitToolCall: () => Release | Promise<Release>;
    /** Runs a search or prepare tool's work in one of the process's search lanes. */
    inSearchLane?: <T>(signal: AbortSignal, work: () => Promise<T>) => Promise<T>;
    /** The request's signal: its timeout abandons tool writes that have not begun their transaction. */
    signal?: AbortSignal;
    /** Told when a tool's write begins its transaction (a timeout then answers write_outcome_unknown). */
    onWriteBegin?: (write: StartedWrite) => void;
  },
) => Promise<Response>;

export interface AppOptions {
  /** The runtime once it is open; undefined before it is ready and once shutdown has begun. */
  runtime: () => Runtime | undefined;
  auth: AuthMode;
  logger: PinoLogger;
  bodyLimitBytes: number;
  requestTimeoutMs: number;
  /** Rate limits and in-flight slots per key; none without keys. */
  admission?: KeyAdmission;
  /** Host and Origin rules; default: loopback only without keys, no foreign origins with keys. */
  origins?: OriginPolicy;
  mcp?: McpHttpHandler;
  /** Prometheus metrics, served at /metrics; without them /metrics answers 404. */
  metrics?: ServerMetrics;
  /** Serve the memory inspector at `/ui` (its built files; see http/inspector-routes.ts). */
  ui?: boolean;
}

/** Which browsers' pages may call the server, and under which host names it may be reached. */
export interface OriginPolicy {
  /**
   * Keyless mode: every request runs with full access, so only loopback `Host` names are served and
   * only loopback pages may call (a page that rebinds its own name to 127.0.0.1 is refused).
   */
  loopbackOnly: boolean;
  /** Keyed mode: pages of these origins (`scheme://host[:port]`) may call with a key, besides the server's own. */
  allowedOrigins: ReadonlySet<string>;
}
