/**
 * What every scripted model server shares: a server on 127.0.0.1 (port chosen by the OS) that
 * records the agent's main requests, starts a new conversation at each request with no tool round
 * yet (one agent run = one conversation), and answers with the conversation's turn for that round
 * (the last turn repeats). Each API format supplies only how to read rounds and the prompt, and how
 * to answer.
 */
export interface ScriptedServer {
  url: string;
  /** The main requests' bodies, in order. */
  requests: any[];
  /** The prompt of each conversation (its first request's user text). */
  prompts(): string[];
  /** Every main request as it came: when, which conversation and round, and whether it was refused. */
  log: { at: number; conversation: number; round: number; refused: boolean }[];
  stop(): void;
}

export interface ApiFormat<Turn> {
  /** A Response for requests outside the script (side calls, other paths); undefined for a main request. */
  side(url: URL, body: any): Response | undefined;
  /** How many tool rounds the request already holds. */
  rounds(body: any): number;
  prompt(body: any): string;
  /** The streamed answer (server-sent events) for one turn; `n` numbers answers for ids. */
  answer(turn: Turn, n: number): string;
  /** Appended to the server's address to make the agent's base URL. */
  basePath?: string;
}

/**
 * Refuses a main request with an error Response (a rate limit, a 401…) instead of answering it. A
 * refused first request does not start its conversation: the next one (the CLI's own retry, or the
 * loop's next run) is asked again for the same conversation.
 */
export type Refuse = (at: { conversation: number; round: number }) => Response | undefined;

/** A refusal for the first `times` requests that match `where` (every one when times is Infinity). */
export function refuseTimes(times: number, where: (at: { conversation: number; round: number }) => boolean, response: () => Response): Refuse {
  let left = times;
  return (at) => (left > 0 && where(at) ? (left--, response()) : undefined);
}

export function startScriptedServer<Turn>(format: ApiFormat<Turn>, conversations: Turn[][], fallback: Turn, refuse?: Refuse): ScriptedServer {
  const requests: any[] = [];
  const log: ScriptedServer["log"] = [];
  let conversation = -1;
  let n = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const body = req.method === "POST" ? ((await req.json().catch(() => ({}))) as any) : {};
      const side = format.side(url, body);
      if (side) return side;
      const round = format.rounds(body);
      const at = { conversation: round === 0 ? conversation + 1 : conversation, round };
      const refused = refuse?.(at);
      log.push({ at: Date.now(), ...at, refused: Boolean(refused) });
      if (refused) return refused;
      requests.push(body);
      if (round === 0) conversation++;
      const script = conversations[Math.min(conversation, conversations.length - 1)] ?? [];
      const turn = script[Math.min(round, script.length - 1)] ?? fallback;
      return new Response(format.answer(turn, ++n), { headers: { "content-type": "text/event-stream" } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}${format.basePath ?? ""}`,
    requests,
    log,
    prompts: () => requests.filter((b) => format.rounds(b) === 0).map((b) => format.prompt(b)),
    stop: () => server.stop(true),
  };
}
