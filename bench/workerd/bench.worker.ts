/**
 * The upload benchmark inside workerd, the runtime a deployed Worker runs in: `npm run bench` starts this Worker
 * with `wrangler dev` (bench/workerd/wrangler.toml), sends it the two documents and runs bench/upload-rows.ts here,
 * the same code its Node rows run. It exists for the benchmark only and is never deployed.
 *
 * - `PUT /documents/contract` and `PUT /documents/snapshot`: the two documents, kept in memory as bytes.
 * - `POST /measure?rounds=N`: the measurements as JSON (UploadMeasurements).
 * - `GET /health`: 200, so the shared wrangler dev helper knows it is up.
 *
 * It needs V8's `gc()` (each round starts after a full GC, as in Node): wrangler passes
 * MINIFLARE_WORKERD_V8_FLAGS="--expose-gc" on to workerd. Without it, /measure answers 412 and says so.
 */
import { measureUpload } from "../upload-rows";

const documents: { contract?: Uint8Array<ArrayBuffer>; snapshot?: Uint8Array<ArrayBuffer> } = {};

function problem(status: number, detail: string): Response {
  return Response.json({ detail }, { status });
}

export default {
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/health") return new Response("ok");
    const side = /^\/documents\/(contract|snapshot)$/.exec(url.pathname)?.[1] as "contract" | "snapshot" | undefined;
    if (side && request.method === "PUT") {
      documents[side] = new Uint8Array(await request.arrayBuffer());
      return new Response(null, { status: 204 });
    }
    if (url.pathname === "/measure" && request.method === "POST") {
      const gc = (globalThis as { gc?: () => void }).gc;
      if (!gc)
        return problem(412, 'gc() is not exposed: start wrangler dev with MINIFLARE_WORKERD_V8_FLAGS="--expose-gc"');
      if (!documents.contract || !documents.snapshot)
        return problem(409, "PUT /documents/contract and /documents/snapshot first");
      const rounds = Number(url.searchParams.get("rounds") ?? "15");
      if (!Number.isInteger(rounds) || rounds < 3 || rounds > 100)
        return problem(400, "rounds must be an integer from 3 to 100");
      const measured = await measureUpload(documents.contract, documents.snapshot, rounds, {
        now: () => performance.now(),
        gc,
      });
      return Response.json(measured);
    }
    return problem(404, "use PUT /documents/contract, PUT /documents/snapshot, then POST /measure");
  },
};
