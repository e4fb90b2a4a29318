// Retention against a write in the same store (src/contracts/store/project-writes.ts): a write checks the content it
// names, then waits on the bucket (here: the head of a form it announces) before its transaction, and a Durable Object
// lets other work in during such a wait, the retention alarm included. Content that was this store's last reference
// when retention ran has its bytes deleted, so a record made after that must not name them: the write is refused as
// missing content, and the same upload made again stores the bytes anew.
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { ContractStore } from "../../../src/contracts/store/durable-object";
import type { Env as WorkerEnv } from "../../../src/env";
import { operator } from "../directory/helpers";
import { restPrincipal, type Caller } from "../harness";
import { call, callJson } from "./api-helpers";
import { conformingSnapshot, ordersContract, text } from "./fixtures";
import { projectContentKey, projectStore } from "./stores";

const bindings = env as unknown as WorkerEnv;
const DAY = 86_400_000;
const POLICY = { snapshotDays: 30, keepPerBranch: 1 };

let ana: Caller;
let large: Uint8Array;
let expiring: { id: number; contentHash: string; size: number };

async function snapshot(commit: string, branch: string, body: string | Uint8Array) {
  const answer = await callJson(ana, "POST", `/projects/race/snapshots?commit=${commit}&branch=${branch}`, body);
  expect(answer.status).toBe(201);
  return answer.body.snapshot as { id: number; contentHash: string; size: number };
}

beforeAll(async () => {
  ana = restPrincipal("ana", "contracts.read contracts.write snapshots.write");
  expect((await callJson(ana, "POST", "/projects/race/contracts", text(ordersContract()))).status).toBe(201);
  const padding = Array.from({ length: 8192 }, (_, i) => i.toString(36).padStart(16, "~")).join("");
  large = new TextEncoder().encode(text({ ...ordersContract(), "x-padding": padding }));
  // A large snapshot (its bytes in the bucket) that retention will expire: old, and not its branch's newest.
  expiring = await snapshot("old0001", "topic", large);
  await snapshot("new0001", "topic", text(conformingSnapshot()));
  await runInDurableObject(projectStore("acme", "race"), (_instance, state) => {
    state.storage.sql.exec(
      "UPDATE snapshots SET uploaded_at = ? WHERE id = ?",
      new Date(Date.now() - 40 * DAY).toISOString(),
      expiring.id,
    );
  });
  expect((await operator("PATCH", "/organizations/acme", { retention: POLICY })).status).toBe(200);
});

describe("retention while a write waits", () => {
  it("refuses a record of bytes retention deleted during the write's wait, and the upload made again stores them", async () => {
    const key = projectContentKey("acme", "race", expiring.contentHash);
    expect(await bindings.DOCUMENTS.head(key)).not.toBeNull();

    const answer = await runInDurableObject(projectStore("acme", "race"), async (instance: ContractStore) => {
      // The store's own bucket binding, with retention run to its end when the write looks at the bucket: the
      // interleaving the runtime allows at that wait, made certain.
      const fields = instance as unknown as { env: WorkerEnv };
      const realEnv = fields.env;
      let retention: Promise<unknown> | undefined;
      const real = realEnv.DOCUMENTS;
      const bucket: Pick<R2Bucket, "head" | "get" | "put" | "delete" | "list"> = {
        async head(name) {
          retention ??= instance.runRetention(POLICY, Date.now());
          await retention;
          return real.head(name);
        },
        get: real.get.bind(real) as R2Bucket["get"],
        put: real.put.bind(real) as R2Bucket["put"],
        delete: real.delete.bind(real),
        list: real.list.bind(real),
      };
      fields.env = { ...realEnv, DOCUMENTS: bucket as R2Bucket };
      try {
        const verdict = { approved: true, totalViolations: 0, errorCount: 0, json: new TextEncoder().encode("{}") };
        // What the upload service sends for a contract whose bytes the store already holds (the expiring
        // snapshot's): the document as recorded content, and a form it wrote to the bucket (here: one it did not).
        const result = await instance.recordContract(
          null,
          {
            project: "race",
            label: null,
            document: {
              contentHash: expiring.contentHash,
              size: expiring.size,
              format: "json",
              openapiVersion: "3.0.3",
              operationCount: 2,
            },
            uploadedBy: "ana",
            activate: true,
          },
          verdict,
          { comparedWithVersion: 1, verdict },
          { hash: expiring.contentHash, size: expiring.size, chunkCount: 0, inline: null, inBucket: true },
          {
            verdict: { hash: `sha256:${"ab".repeat(32)}`, size: 10, chunkCount: 0, inline: null, inBucket: true },
            comparison: null,
          },
        );
        expect(retention, "the write did not wait on the bucket").toBeDefined();
        return { result, run: await retention };
      } finally {
        fields.env = realEnv;
      }
    });

    expect(answer.run).toMatchObject({ deleted: { snapshots: 1 } });
    expect(await bindings.DOCUMENTS.head(key)).toBeNull();
    expect(answer.result).toMatchObject({ ok: false, code: "missing_content" });
    const versions = (await callJson(ana, "GET", "/projects/race/contracts")).body.contracts;
    expect(versions.map((v: { version: number }) => v.version)).toEqual([1]);

    // The same upload again: the bytes go to the bucket anew, and the version reads back byte for byte.
    const again = await callJson(ana, "POST", "/projects/race/contracts", large);
    expect(again.status).toBe(201);
    expect(again.body.contract.contentHash).toBe(expiring.contentHash);
    const document = await call(ana, "GET", `/projects/race/contracts/${again.body.contract.version}/document`);
    expect(document.status).toBe(200);
    expect(new Uint8Array(await document.arrayBuffer())).toEqual(large);
  });
});
