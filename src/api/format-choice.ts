/**
 * Which verdict formats a REST request asks for: `?format=<one>` (the answer is that document) or `?formats=a,b`
 * (embedded in the JSON answer). HTTP parsing belongs to the REST layer; the engine only renders (src/engine/formats).
 */
import { isVerdictFormat, VERDICT_FORMATS, type VerdictFormat } from "../engine";

export type FormatChoice =
  | { ok: true; single?: VerdictFormat; embedded: VerdictFormat[] }
  | { ok: false; message: string };

/** Reads `?format=` (answer with that document) and `?formats=a,b` (embed those in the JSON answer). */
export function formatChoice(url: URL): FormatChoice {
  const allowed = VERDICT_FORMATS.join(", ");
  const single = url.searchParams.get("format");
  if (single !== null && !isVerdictFormat(single))
    return {
      ok: false,
      message: `format "${single.slice(0, 40)}" is not one of ${allowed}: pass ?format=sarif, for example.`,
    };
  const listed = url.searchParams.get("formats");
  const embedded: VerdictFormat[] = [];
  if (listed !== null) {
    for (const name of listed
      .split(",")
      .map((part) => part.trim())
      .filter(Boolean)) {
      if (!isVerdictFormat(name))
        return { ok: false, message: `formats lists "${name.slice(0, 40)}", which is not one of ${allowed}.` };
      if (!embedded.includes(name)) embedded.push(name);
    }
  }
  if (single !== null && embedded.length > 0)
    return {
      ok: false,
      message:
        "pass either ?format=<one> (the answer is that document) or ?formats=<a,b> (embedded in the JSON answer), not both.",
    };
  return single === null ? { ok: true, embedded } : { ok: true, single, embedded };
}
