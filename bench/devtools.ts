/**
 * What the profiling scripts (bench/mcp-profile.ts, bench/upload-profile.ts) share: a DevTools protocol session on
 * wrangler dev's inspector, the shape of a V8 CPU profile, and the bundle's modules by line.
 */

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; scriptId: string };
  hitCount?: number;
  children?: number[];
}

export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime?: number;
  endTime?: number;
}

export interface DevTools {
  send(method: string, params?: object): Promise<any>;
  /** Scripts the runtime reported (Debugger.scriptParsed), by script id. */
  scripts: Map<string, string>;
  close(): void;
}

/** A DevTools protocol session over the inspector's WebSocket (wrangler's proxy wants an Origin it knows). */
export async function devtools(port: number): Promise<DevTools> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as Array<{
    webSocketDebuggerUrl: string;
  }>;
  if (!targets[0]) throw new Error("the inspector lists no target");
  // Node's WebSocket takes headers as an option.
  const socket = new WebSocket(targets[0].webSocketDebuggerUrl, { headers: { Origin: "http://localhost" } } as never);
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", reject, { once: true });
  });
  let next = 1;
  const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  const scripts = new Map<string, string>();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as {
      id?: number;
      method?: string;
      params?: { scriptId: string; url: string };
      result?: unknown;
      error?: { message: string };
    };
    if (message.method === "Debugger.scriptParsed" && message.params)
      scripts.set(message.params.scriptId, message.params.url);
    if (message.id === undefined) return;
    const entry = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.error) entry?.reject(new Error(message.error.message));
    else entry?.resolve(message.result);
  });
  return {
    send(method, params = {}) {
      const id = next++;
      socket.send(JSON.stringify({ id, method, params }));
      return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
    },
    scripts,
    close: () => socket.close(),
  };
}

/**
 * The bundle's modules by line: esbuild (which wrangler dev runs unminified) starts each module with a `// path`
 * comment, so a frame's line names the file it came from; undefined before the first module.
 */
export function bundleModules(source: string): (line: number) => string | undefined {
  const starts: Array<{ line: number; path: string }> = [];
  source.split("\n").forEach((text, line) => {
    const match = /^\/\/ ((?:src|node_modules|bench|policies)\/\S+)$/.exec(text);
    if (match) starts.push({ line, path: match[1]! });
  });
  return (line) => {
    let low = 0;
    let high = starts.length - 1;
    let found: string | undefined;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (starts[middle]!.line <= line) {
        found = starts[middle]!.path;
        low = middle + 1;
      } else high = middle - 1;
    }
    return found;
  };
}
