/**
 * A loopback HTTP server that speaks the OpenAI protocol (chat completions, embeddings), for testing
 * adapters and whole runtimes over real HTTP without a model. Binds 127.0.0.1 only.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  /** Resolves when the client closes the connection or the response finished. */
  closed: Promise<void>;
}

export type Responder = (request: RecordedRequest, response: ServerResponse, index: number) => void;

export interface LoopbackServer {
  /** `http://127.0.0.1:<port>/v1`, the base URL the providers expect. */
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 at a free port that records each request and lets `respond` answer. */
export async function startLoopbackServer(respond: Responder): Promise<LoopbackServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    const closed = new Promise<void>((resolve) => response.on('close', () => resolve()));
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: text === '' ? undefined : JSON.parse(text),
        closed,
      };
      requests.push(recorded);
      respond(recorded, response, requests.length - 1);
    });
  });
  const port = await listen(server);
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => shutdown(server),
  };
}

/** A loopback port nothing listens on: bound once, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await shutdown(server);
  return port;
}

/** Answers like `POST /v1/embeddings` of the OpenAI API, with vectors made by `vectorOf`. */
export function embeddingsAnswer(
  response: ServerResponse,
  request: RecordedRequest,
  vectorOf: (text: string) => number[],
) {
  const { model, input } = request.body as { model: string; input: string[] };
  sendJson(response, 200, {
    object: 'list',
    data: input.map((text, index) => ({ object: 'embedding', index, embedding: vectorOf(text) })),
    model,
    usage: { prompt_tokens: input.length * 3, total_tokens: input.length * 3 },
  });
}

export interface ChatCompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/**
 * Answers like `POST /v1/chat/completions` of the OpenAI API: one assistant message whose content is
 * `content` (a string, e.g. the JSON text of a structured answer), finish reason `stop`, and `usage`
 * unless it is `null`.
 */
export function chatCompletionAnswer(
  response: ServerResponse,
  request: RecordedRequest,
  content: string,
  usage: ChatCompletionUsage | null = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
) {
  const { model } = (request.body ?? {}) as { model?: string };
  sendJson(response, 200, {
    id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: model ?? 'unknown',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    ...(usage === null ? {} : { usage }),
  });
}

/** A responder that lets the n-th script step answer the n-th request; requests past the script get HTTP 418, which is not retried. */
export function scripted(...steps: Responder[]): Responder {
  return (request, response, index) => {
    const step = steps[index];
    if (step) step(request, response, index);
    else sendJson(response, 418, { error: { message: `unscripted request ${index}`, type: 'test_error' } });
  };
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function shutdown(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}
