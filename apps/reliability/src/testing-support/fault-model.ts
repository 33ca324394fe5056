import type { ServerResponse } from 'node:http';
import {
  chatCompletionAnswer,
  type LoopbackServer,
  type RecordedRequest,
  sendJson,
  startLoopbackServer,
} from '@powercontext/inference-ai-sdk/testing';

/**
 * How the loopback model answers the next requests. `select` answers the ranks the test set; every
 * other behaviour is a fault.
 */
export type ModelBehaviour =
  | 'select'
  | 'hang'
  | 'http_500'
  | 'http_503_html'
  | 'reset'
  | 'reset_mid_body'
  | 'slow_stream_ok'
  | 'slow_stream_stall'
  | 'oversized_ranks'
  | 'oversized_prose'
  | 'malformed_prose'
  | 'malformed_schema'
  | 'malformed_envelope'
  | 'truncated_body'
  | 'empty_choices';

export interface FaultModel {
  baseUrl: string;
  behaviour: ModelBehaviour;
  /** The ranks `select` (and the slow streams) answer with. */
  ranks: number[];
  /** Every request the model received, in order. */
  requests: RecordedRequest[];
  /** Requests whose HTTP exchange is still open (neither answered nor closed by the client). */
  open(): number;
  /** Resolves once no request is open, or rejects after `ms`. */
  settled(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** The JSON text of a chat completion whose assistant message is `content`. */
export function completionJson(content: string, model = 'fault-model'): string {
  return JSON.stringify({
    id: 'chatcmpl-reliability',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
  });
}

/** Writes `body` in `pieces` parts, one every `intervalMs`; stops when the client goes away. */
function dribble(response: ServerResponse, body: string, pieces: number, intervalMs: number) {
  response.writeHead(200, { 'content-type': 'application/json' });
  const size = Math.ceil(body.length / pieces);
  let offset = 0;
  const timer = setInterval(() => {
    if (response.destroyed) return clearInterval(timer);
    response.write(body.slice(offset, offset + size));
    offset += size;
    if (offset >= body.length) {
      clearInterval(timer);
      response.end();
    }
  }, intervalMs);
  response.on('close', () => clearInterval(timer));
}

/** Headers at once, then one space every 100 ms, never the end: a stream that stalls. */
function stall(response: ServerResponse) {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.write('{"id":"chatcmpl-stall",');
  const timer = setInterval(() => {
    if (response.destroyed) return clearInterval(timer);
    response.write(' ');
  }, 100);
  response.on('close', () => clearInterval(timer));
}

function answer(model: FaultModel, request: RecordedRequest, response: ServerResponse) {
  const ranks = () => JSON.stringify({ ranks: model.ranks });
  switch (model.behaviour) {
    case 'select':
      return chatCompletionAnswer(response, request, ranks());
    case 'hang':
      return;
    case 'http_500':
      return sendJson(response, 500, { error: { message: 'overloaded', type: 'server_error' } });
    case 'http_503_html':
      response.writeHead(503, { 'content-type': 'text/html' });
      return response.end('<html><body>Service Unavailable</body></html>');
    case 'reset':
      return response.socket?.resetAndDestroy();
    case 'reset_mid_body': {
      const body = completionJson(ranks());
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
      response.write(body.slice(0, body.length >> 1));
      setTimeout(() => response.socket?.resetAndDestroy(), 20);
      return;
    }
    case 'slow_stream_ok':
      // The whole answer over about 400 ms: slower than any single read, well inside the timeout.
      return dribble(response, completionJson(ranks()), 8, 50);
    case 'slow_stream_stall':
      return stall(response);
    case 'oversized_ranks': {
      // A valid answer with 200,000 ranks (about 1.3 MB): every rank after the limit is ignored.
      const many = Array.from({ length: 200_000 }, (_, index) => (index % 97) + 1);
      return chatCompletionAnswer(response, request, JSON.stringify({ ranks: [...model.ranks, ...many] }));
    }
    case 'oversized_prose':
      return chatCompletionAnswer(response, request, 'rank two is best. '.repeat(500_000));
    case 'malformed_prose':
      return chatCompletionAnswer(response, request, 'the best ones are two and one');
    case 'malformed_schema':
      return chatCompletionAnswer(response, request, JSON.stringify({ ranks: model.ranks.map(String) }));
    case 'malformed_envelope':
      response.writeHead(200, { 'content-type': 'application/json' });
      return response.end('<html>not json</html>');
    case 'truncated_body': {
      const body = completionJson(ranks());
      response.writeHead(200, { 'content-type': 'application/json' });
      return response.end(body.slice(0, body.length - 20));
    }
    case 'empty_choices':
      return sendJson(response, 200, {
        id: 'x',
        object: 'chat.completion',
        created: 0,
        model: 'm',
        choices: [],
      });
  }
}

export async function startFaultModel(initialRanks: number[] = [2, 1]): Promise<FaultModel> {
  let openCount = 0;
  let loopback: LoopbackServer | undefined;
  const model: FaultModel = {
    baseUrl: '',
    behaviour: 'select',
    ranks: initialRanks,
    requests: [],
    open: () => openCount,
    async settled(ms) {
      const deadline = performance.now() + ms;
      while (openCount > 0) {
        if (performance.now() > deadline)
          throw new Error(`${openCount} model requests still open after ${ms} ms`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    close: () => loopback?.close() ?? Promise.resolve(),
  };
  loopback = await startLoopbackServer((request, response) => {
    openCount += 1;
    void request.closed.then(() => {
      openCount -= 1;
    });
    answer(model, request, response);
  });
  model.baseUrl = loopback.baseUrl;
  model.requests = loopback.requests;
  return model;
}
