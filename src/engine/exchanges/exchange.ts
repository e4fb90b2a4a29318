/**
 * One recorded HTTP exchange as the validator reads it, whatever file it came from (HAR 1.2 or NDJSON), and the
 * bounds on an upload of them. Header names are lower-case (RFC 9110: case-insensitive); bodies are text.
 */

export interface RecordedExchange {
  /** Upper-case method. */
  method: string;
  /** Path and query as sent, e.g. "/v1/orders/ord_1?expand=lines" (an absolute URL is reduced to this). */
  target: string;
  status: number;
  requestHeaders: Record<string, string>;
  /** Undefined when the recording carries no request body. */
  requestBody?: string;
  /** The content type of the request body (its header, or HAR postData.mimeType). */
  requestContentType?: string;
  responseHeaders: Record<string, string>;
  responseBody?: string;
  responseContentType?: string;
}

/** Exchanges accepted in one upload. */
export const MAX_EXCHANGES = 5000;
/** One request or response body, decoded (base64 bodies are counted after decoding). */
export const MAX_EXCHANGE_BODY_BYTES = 1024 * 1024;
/** The whole upload (HAR or NDJSON file) as sent. */
export const MAX_EXCHANGES_UPLOAD_BYTES = 15 * 1024 * 1024;
/** Violations listed in the verdict; the rest are counted in totalViolations and the summary. */
export const MAX_EXCHANGE_VIOLATIONS_LISTED = 1000;

/** Why an upload of exchanges cannot be read. `pointer` names the place, e.g. "/log/entries/3/response/status". */
export interface ExchangeProblem {
  pointer: string;
  message: string;
}

export type ParsedExchanges =
  | { ok: true; format: "har" | "ndjson"; exchanges: RecordedExchange[] }
  | { ok: false; code: "invalid_exchanges"; problems: ExchangeProblem[] }
  | { ok: false; code: "too_many_exchanges"; count: number }
  | { ok: false; code: "exchange_body_too_large"; pointer: string; bytes: number };
