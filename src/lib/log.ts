/**
 * Structured JSON logs. Only what is passed explicitly is logged: never request bodies, headers, tokens or
 * env. Errors are reduced to name and message (first line, truncated).
 */
/** Masks credentials that error messages sometimes carry (connection strings, headers, query strings). */
export function redactSecrets(text: string): string {
  return text
    .replace(/\b(bearer|basic)\s+[A-Za-z0-9._~+/=:-]+/gi, "$1 [redacted]")
    .replace(
      /\b(password|passwd|pwd|secret|token|api[_-]?key|apikey|authorization|credential)s?("?\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s&;,]+)/gi,
      "$1$2[redacted]",
    )
    .replace(/\/\/[^/@\s:]+:[^/@\s]+@/g, "//[redacted]@");
}

function describe(value: unknown): unknown {
  if (value instanceof Error)
    return { name: value.name, message: redactSecrets(value.message.split("\n")[0]?.slice(0, 300) ?? "") };
  return value;
}

function emit(level: "info" | "warn" | "error", message: string, fields: Record<string, unknown>): void {
  const safe: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) safe[key] = describe(value);
  const line = JSON.stringify({ level, message, ...safe });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}

export const logInfo = (message: string, fields: Record<string, unknown> = {}) => emit("info", message, fields);
export const logWarn = (message: string, fields: Record<string, unknown> = {}) => emit("warn", message, fields);
export const logError = (message: string, fields: Record<string, unknown> = {}) => emit("error", message, fields);
