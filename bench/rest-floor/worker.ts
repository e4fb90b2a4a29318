/**
 * BENCHMARK BASELINE, NEVER DEPLOYED: the least a REST upload of a document costs under `wrangler dev` when its
 * bytes go to R2, as issue 33 asks and the product does (src/contracts/store/bucket.ts). `npm run bench` POSTs the
 * same 13 MB snapshot here as to the product, in the same rounds, and reports each way as a multiple of JSON.parse:
 *  - POST /floor?way=body: the body read into memory, its length answered (moving the bytes through wrangler dev);
 *  - POST /floor?way=bucket&key=K: the body read, its SHA-256 taken and the bytes put under K with R2's SHA-256
 *    check, as the product stores a snapshot's bytes, and nothing else (no parse, verdict, Durable Object or record);
 *  - POST /floor?way=stream&key=K: the request's body streamed into the bucket as it arrives, nothing buffered or
 *    checked: the least any upload that keeps its bytes in the bucket could cost.
 * No authentication, no limits: that is why it must never be deployed.
 */

interface Env {
  DOCUMENTS: R2Bucket;
}

const hex = (digest: ArrayBuffer) => [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/health") return new Response("ok");
    if (url.pathname !== "/floor" || request.method !== "POST") return new Response("Not found", { status: 404 });
    const way = url.searchParams.get("way");
    const key = `floor/${url.searchParams.get("key") ?? "unnamed"}`;
    if (way === "stream") {
      if (!request.body) return new Response("a body is required", { status: 400 });
      const stored = await env.DOCUMENTS.put(key, request.body);
      return new Response(String(stored?.size ?? 0));
    }
    const bytes = await request.arrayBuffer();
    if (way === "body") return new Response(String(bytes.byteLength));
    if (way !== "bucket") return new Response("way must be body, bucket or stream", { status: 400 });
    const sha256 = hex(await crypto.subtle.digest("SHA-256", bytes));
    await env.DOCUMENTS.put(key, bytes, { sha256 });
    return new Response(sha256);
  },
};
