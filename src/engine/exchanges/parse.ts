/**
 * Reads an upload of recorded exchanges: a HAR 1.2 file (what browsers, proxies and most HTTP test tools
 * export) or NDJSON, one exchange per line. The format comes from the Content-Type when it names one
 * (application/x-ndjson, application/jsonl; application/json or a .har type), otherwise from the content: one
 * JSON object with a `log` member is HAR, anything else is read as NDJSON lines. Pure: text in, exchanges or
 * the problems (with a pointer to each) out.
 */
import { isRecord } from "../normalize/normalize-pointer";
import {
  MAX_EXCHANGE_BODY_BYTES,
  MAX_EXCHANGES,
  type ExchangeProblem,
  type ParsedExchanges,
  type RecordedExchange,
} from "./exchange";

/** Problems listed for a malformed upload; reading stops after this many. */
const MAX_PROBLEMS = 20;

class TooLarge {
  constructor(
    readonly pointer: string,
    readonly bytes: number,
  ) {}
}

/** Collects problems while reading; `fatal` ones stop the entry they are found in. */
class Problems {
  readonly list: ExchangeProblem[] = [];
  add(pointer: string, message: string): void {
    if (this.list.length < MAX_PROBLEMS) this.list.push({ pointer, message });
  }
  get full(): boolean {
    return this.list.length >= MAX_PROBLEMS;
  }
}

function utf8Length(text: string): number {
  // Exact only when it matters: a string of n code units takes between n and 3n bytes.
  return text.length * 3 <= MAX_EXCHANGE_BODY_BYTES ? text.length : new TextEncoder().encode(text).byteLength;
}

function checkedBody(text: string, pointer: string): string {
  const bytes = utf8Length(text);
  if (bytes > MAX_EXCHANGE_BODY_BYTES) throw new TooLarge(pointer, bytes);
  return text;
}

function decodeBase64(text: string, pointer: string, problems: Problems): string | undefined {
  if (text.length * 0.75 > MAX_EXCHANGE_BODY_BYTES) throw new TooLarge(pointer, Math.floor(text.length * 0.75));
  try {
    const binary = atob(text.replace(/\s+/g, ""));
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    return new TextDecoder().decode(bytes);
  } catch {
    problems.add(pointer, 'content.encoding is "base64" but content.text is not valid base64');
    return undefined;
  }
}

function headerValue(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value.join(", ");
  return undefined;
}

/** HAR headers ([{ name, value }]) or an NDJSON object ({ name: value }) -> lower-case names; repeats joined. */
function readHeaders(raw: unknown, pointer: string, problems: Problems): Record<string, string> {
  // No prototype: a header named "constructor" or "__proto__" is just a header.
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  const add = (name: string, value: string) => {
    const key = name.toLowerCase();
    headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
  };
  if (raw === undefined || raw === null) return headers;
  if (Array.isArray(raw)) {
    raw.forEach((entry, position) => {
      const value = isRecord(entry) ? headerValue(entry.value) : undefined;
      if (!isRecord(entry) || typeof entry.name !== "string" || value === undefined)
        problems.add(`${pointer}/${position}`, "a header must be an object with a string name and value");
      else add(entry.name, value);
    });
    return headers;
  }
  if (isRecord(raw)) {
    for (const [name, entry] of Object.entries(raw)) {
      const value = headerValue(entry);
      if (value === undefined)
        problems.add(`${pointer}/${name}`, "a header value must be a string (or a list of strings)");
      else add(name, value);
    }
    return headers;
  }
  problems.add(pointer, "headers must be a list of { name, value } (HAR) or an object of name: value");
  return headers;
}

/** The path and query of an absolute URL or a path; undefined when it is neither. */
function targetOf(url: string): string | undefined {
  if (url.startsWith("/")) return url.split("#")[0];
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return undefined;
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return undefined;
  }
}

function readStatus(raw: unknown, pointer: string, problems: Problems): number | undefined {
  if (typeof raw === "number" && Number.isInteger(raw) && raw >= 100 && raw <= 599) return raw;
  problems.add(
    pointer,
    `the status must be an HTTP status code from 100 to 599, got ${JSON.stringify(raw)?.slice(0, 20) ?? "nothing"}`,
  );
  return undefined;
}

function readMethod(raw: unknown, pointer: string, problems: Problems): string | undefined {
  if (typeof raw === "string" && /^[A-Za-z]{1,20}$/.test(raw)) return raw.toUpperCase();
  problems.add(pointer, "the method must be an HTTP method such as GET or POST");
  return undefined;
}

// ---- HAR 1.2 ------------------------------------------------------------------------------------------------

function harEntry(entry: unknown, pointer: string, problems: Problems): RecordedExchange | undefined {
  if (!isRecord(entry)) {
    problems.add(pointer, "an entry must be an object with request and response");
    return undefined;
  }
  const { request, response } = entry;
  if (!isRecord(request)) problems.add(`${pointer}/request`, "the entry has no request object");
  if (!isRecord(response)) problems.add(`${pointer}/response`, "the entry has no response object");
  if (!isRecord(request) || !isRecord(response)) return undefined;
  const method = readMethod(request.method, `${pointer}/request/method`, problems);
  const target = typeof request.url === "string" ? targetOf(request.url) : undefined;
  if (target === undefined)
    problems.add(`${pointer}/request/url`, "request.url must be an absolute http(s) URL or a path starting with /");
  const status = readStatus(response.status, `${pointer}/response/status`, problems);
  const requestHeaders = readHeaders(request.headers, `${pointer}/request/headers`, problems);
  const responseHeaders = readHeaders(response.headers, `${pointer}/response/headers`, problems);
  const exchange: RecordedExchange = {
    method: method ?? "GET",
    target: target ?? "/",
    status: status ?? 0,
    requestHeaders,
    responseHeaders,
  };
  const postData = request.postData;
  if (isRecord(postData)) {
    if (typeof postData.text === "string") {
      exchange.requestBody =
        postData.encoding === "base64"
          ? decodeBase64(postData.text, `${pointer}/request/postData/text`, problems)
          : checkedBody(postData.text, `${pointer}/request/postData/text`);
    }
    if (typeof postData.mimeType === "string" && postData.mimeType !== "")
      exchange.requestContentType = postData.mimeType;
  } else if (postData !== undefined)
    problems.add(`${pointer}/request/postData`, "postData must be an object with mimeType and text");
  exchange.requestContentType ??= requestHeaders["content-type"];
  const content = response.content;
  if (isRecord(content)) {
    // HAR writes an empty text for "no body" as often as it leaves text out.
    if (typeof content.text === "string" && content.text !== "") {
      exchange.responseBody =
        content.encoding === "base64"
          ? decodeBase64(content.text, `${pointer}/response/content/text`, problems)
          : checkedBody(content.text, `${pointer}/response/content/text`);
    }
    if (typeof content.mimeType === "string" && content.mimeType !== "" && content.mimeType !== "x-unknown")
      exchange.responseContentType = content.mimeType;
  } else if (content !== undefined)
    problems.add(`${pointer}/response/content`, "response.content must be an object with mimeType and text");
  exchange.responseContentType = responseHeaders["content-type"] ?? exchange.responseContentType;
  return method && target !== undefined && status ? exchange : undefined;
}

function readHar(document: Record<string, unknown>, problems: Problems): RecordedExchange[] | number {
  const log = document.log;
  if (!isRecord(log)) {
    problems.add("/log", "a HAR file has a log object");
    return [];
  }
  if (!Array.isArray(log.entries)) {
    problems.add("/log/entries", "a HAR log has an entries list (HAR 1.2: log.entries[].request and .response)");
    return [];
  }
  if (log.entries.length > MAX_EXCHANGES) return log.entries.length;
  const exchanges: RecordedExchange[] = [];
  log.entries.forEach((entry, position) => {
    if (problems.full) return;
    const exchange = harEntry(entry, `/log/entries/${position}`, problems);
    if (exchange) exchanges.push(exchange);
  });
  return exchanges;
}

// ---- NDJSON -------------------------------------------------------------------------------------------------

/** An NDJSON body is text, or any JSON value (taken as that JSON). */
function ndjsonBody(raw: unknown, pointer: string, problems: Problems): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === "string") return checkedBody(raw, pointer);
  let text: string;
  try {
    text = JSON.stringify(raw);
  } catch {
    // Only a value nested beyond the engine's stack gets here (JSON.parse accepted it).
    problems.add(pointer, "the body nests too deeply to be read");
    return undefined;
  }
  return checkedBody(text, pointer);
}

function ndjsonLine(value: unknown, pointer: string, problems: Problems): RecordedExchange | undefined {
  if (!isRecord(value)) {
    problems.add(
      pointer,
      "each line must be a JSON object {method, url or path, status, requestHeaders?, requestBody?, responseHeaders?, responseBody?}",
    );
    return undefined;
  }
  const method = readMethod(value.method, `${pointer}/method`, problems);
  const where = typeof value.url === "string" ? value.url : typeof value.path === "string" ? value.path : undefined;
  const target = where === undefined ? undefined : targetOf(where);
  if (target === undefined)
    problems.add(
      `${pointer}/${value.url === undefined ? "path" : "url"}`,
      "give url (an absolute http(s) URL) or path (starting with /)",
    );
  const status = readStatus(value.status, `${pointer}/status`, problems);
  const requestHeaders = readHeaders(value.requestHeaders, `${pointer}/requestHeaders`, problems);
  const responseHeaders = readHeaders(value.responseHeaders, `${pointer}/responseHeaders`, problems);
  if (!method || target === undefined || !status) return undefined;
  const exchange: RecordedExchange = { method, target, status, requestHeaders, responseHeaders };
  const requestBody = ndjsonBody(value.requestBody, `${pointer}/requestBody`, problems);
  if (requestBody !== undefined) exchange.requestBody = requestBody;
  const responseBody = ndjsonBody(value.responseBody, `${pointer}/responseBody`, problems);
  if (responseBody !== undefined) exchange.responseBody = responseBody;
  // A body given as a JSON value is JSON even when the line names no content type.
  const requestType =
    requestHeaders["content-type"] ??
    (requestBody !== undefined && typeof value.requestBody !== "string" ? "application/json" : undefined);
  const responseType =
    responseHeaders["content-type"] ??
    (responseBody !== undefined && typeof value.responseBody !== "string" ? "application/json" : undefined);
  if (requestType) exchange.requestContentType = requestType;
  if (responseType) exchange.responseContentType = responseType;
  return exchange;
}

function readNdjson(text: string, problems: Problems): RecordedExchange[] | number {
  const lines = text.split("\n");
  const exchanges: RecordedExchange[] = [];
  let count = 0;
  for (let number = 0; number < lines.length && !problems.full; number++) {
    const line = (lines[number] ?? "").trim();
    if (line === "") continue;
    if (++count > MAX_EXCHANGES) return lines.filter((entry) => entry.trim() !== "").length;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      problems.add(`/lines/${number + 1}`, `line ${number + 1} is not valid JSON`);
      continue;
    }
    const exchange = ndjsonLine(value, `/lines/${number + 1}`, problems);
    if (exchange) exchanges.push(exchange);
  }
  return exchanges;
}

// ---- either -------------------------------------------------------------------------------------------------

function declaredFormat(contentType: string | undefined): "har" | "ndjson" | undefined {
  const essence = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (
    essence === "application/x-ndjson" ||
    essence === "application/ndjson" ||
    essence === "application/jsonl" ||
    essence === "application/x-jsonlines"
  )
    return "ndjson";
  if (essence === "application/json" || essence.includes("har")) return "har";
  return undefined;
}

export function parseExchanges(text: string, contentType?: string): ParsedExchanges {
  const problems = new Problems();
  let format = declaredFormat(contentType);
  let document: unknown;
  if (format !== "ndjson") {
    try {
      document = JSON.parse(text);
    } catch {
      if (format === "har")
        return {
          ok: false,
          code: "invalid_exchanges",
          problems: [
            {
              pointer: "",
              message:
                "the body is not valid JSON: send a HAR 1.2 file, or NDJSON with Content-Type application/x-ndjson",
            },
          ],
        };
    }
    format ??= isRecord(document) && "log" in document ? "har" : "ndjson";
  }
  let read: RecordedExchange[] | number;
  try {
    read =
      format === "har"
        ? isRecord(document)
          ? readHar(document, problems)
          : (problems.add("", "a HAR file is one JSON object with a log member"), [])
        : readNdjson(text, problems);
  } catch (error) {
    if (error instanceof TooLarge)
      return { ok: false, code: "exchange_body_too_large", pointer: error.pointer, bytes: error.bytes };
    throw error;
  }
  if (typeof read === "number") return { ok: false, code: "too_many_exchanges", count: read };
  if (problems.list.length > 0) return { ok: false, code: "invalid_exchanges", problems: problems.list };
  if (read.length === 0)
    return {
      ok: false,
      code: "invalid_exchanges",
      problems: [{ pointer: format === "har" ? "/log/entries" : "", message: "the upload holds no exchanges" }],
    };
  return { ok: true, format, exchanges: read };
}
