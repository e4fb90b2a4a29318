/**
 * Recorded exchanges of GitHub's REST API built from its own description: for every operation whose JSON success
 * response references an example in components.examples, one exchange with the path parameters filled in
 * (enum values, numbers for integers, words for strings), its required query and header parameters, the request
 * body's example when the operation requires a body, and the example as the response body. Cycled to `count`.
 */
type Json = Record<string, any>;
const METHODS = ["get", "put", "post", "delete", "patch"];

function deref(document: Json, value: any): any {
  let current = value;
  for (let hops = 0; hops < 16 && current && typeof current.$ref === "string"; hops++) {
    current = current.$ref
      .slice(2)
      .split("/")
      .reduce((node: any, token: string) => node?.[token.replace(/~1/g, "/").replace(/~0/g, "~")], document);
  }
  return current;
}

function sampleValue(document: Json, schema: any): string {
  const resolved = deref(document, schema) ?? {};
  if (Array.isArray(resolved.enum) && resolved.enum.length > 0) return String(resolved.enum[0]);
  if (resolved.type === "integer" || resolved.type === "number") return "42";
  if (resolved.type === "boolean") return "true";
  return "octocat";
}

function exampleOf(document: Json, mediaType: any): unknown {
  const examples = mediaType?.examples;
  if (!examples || typeof examples !== "object") return undefined;
  const first = Object.values(examples)[0] as any;
  const example = deref(document, first);
  return example?.value;
}

export interface BenchExchange {
  method: string;
  url: string;
  status: number;
  requestHeaders: Record<string, string>;
  requestBody?: unknown;
  responseBody: unknown;
}

export function githubExchanges(document: Json, count: number): BenchExchange[] {
  const built: BenchExchange[] = [];
  for (const [path, rawItem] of Object.entries(document.paths as Json)) {
    const item = deref(document, rawItem);
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const status = Object.keys(operation.responses ?? {}).find(
        (key) => /^2\d\d$/.test(key) && deref(document, operation.responses[key])?.content?.["application/json"],
      );
      if (!status) continue;
      const responseBody = exampleOf(
        document,
        deref(document, operation.responses[status]).content["application/json"],
      );
      if (responseBody === undefined) continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((parameter: any) =>
        deref(document, parameter),
      );
      let concrete = path;
      const query = new URLSearchParams();
      const requestHeaders: Record<string, string> = { accept: "application/vnd.github+json" };
      for (const parameter of parameters) {
        const value = sampleValue(document, parameter.schema);
        if (parameter.in === "path") concrete = concrete.replace(`{${parameter.name}}`, encodeURIComponent(value));
        else if (parameter.in === "query" && parameter.required) query.set(parameter.name, value);
        else if (parameter.in === "header" && parameter.required) requestHeaders[parameter.name.toLowerCase()] = value;
      }
      const requestBody = deref(document, operation.requestBody);
      let body: unknown;
      if (requestBody?.required) {
        body = exampleOf(document, requestBody.content?.["application/json"]);
        if (body === undefined) continue;
        requestHeaders["content-type"] = "application/json";
      }
      const search = query.toString();
      built.push({
        method: method.toUpperCase(),
        url: `https://api.github.com${concrete}${search ? `?${search}` : ""}`,
        status: Number(status),
        requestHeaders,
        ...(body === undefined ? {} : { requestBody: body }),
        responseBody,
      });
    }
  }
  if (built.length === 0) throw new Error("no GitHub operation has a response example");
  return Array.from({ length: count }, (_, index) => built[index % built.length]!);
}

/** The exchanges as a HAR 1.2 file, as a browser or proxy exports them. */
export function harOf(exchanges: readonly BenchExchange[]): string {
  const headers = (map: Record<string, string>) => Object.entries(map).map(([name, value]) => ({ name, value }));
  return JSON.stringify({
    log: {
      version: "1.2",
      creator: { name: "arbiter-bench", version: "1" },
      entries: exchanges.map((exchange) => ({
        request: {
          method: exchange.method,
          url: exchange.url,
          headers: headers(exchange.requestHeaders),
          ...(exchange.requestBody === undefined
            ? {}
            : { postData: { mimeType: "application/json", text: JSON.stringify(exchange.requestBody) } }),
        },
        response: {
          status: exchange.status,
          headers: [{ name: "content-type", value: "application/json; charset=utf-8" }],
          content: { mimeType: "application/json", text: JSON.stringify(exchange.responseBody) },
        },
      })),
    },
  });
}
