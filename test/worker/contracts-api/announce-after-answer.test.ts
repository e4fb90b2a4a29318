/**
 * CI's uploads are answered without waiting for their change to be announced: a project's subscribed sessions (up to
 * MAX_SUBSCRIBERS_PER_PROJECT of them) are told after the answer, through ctx.waitUntil, so an upload costs the same
 * whatever the number of sessions following the project. Here the announcements never finish until the test
 * releases them, and both uploads are answered meanwhile.
 */
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { contractRoutes } from "../../../src/api/contracts.routes";
import { createApiHandler } from "../../../src/api/router";
import type { ContractChangeListener } from "../../../src/contracts/store/events";
import type { Env } from "../../../src/env";
import { API_RESOURCE, BASE } from "../helpers";
import { ordersContract, violatingSnapshot } from "../contracts-mcp/fixtures";

describe("announcements after the answer", () => {
  it("answers a contract upload and a snapshot upload while their announcements are still running", async () => {
    let release!: () => void;
    const held = new Promise<void>((done) => {
      release = done;
    });
    const announced: string[] = [];
    const listener: ContractChangeListener = {
      async verdictStored(_env, organizationId, project, snapshotId) {
        announced.push(`verdict ${organizationId}/${project} #${snapshotId}`);
        await held;
      },
      async activeContractChanged(_env, organizationId, project, version) {
        announced.push(`contract ${organizationId}/${project} v${version}`);
        await held;
      },
    };
    const background: Promise<unknown>[] = [];
    const context = () =>
      ({
        props: { organizationId: "acme", userId: "ana", role: "admin", name: "Ana" },
        auth: {
          token: "t",
          audience: API_RESOURCE,
          scope: ["contracts.read", "contracts.write", "snapshots.write"],
          clientId: "c",
        },
        waitUntil(promise: Promise<unknown>) {
          background.push(promise);
        },
        passThroughOnException() {},
      }) as unknown as ExecutionContext;
    const handler = createApiHandler(contractRoutes(listener));
    const upload = (path: string, body: object) =>
      Promise.race([
        handler.fetch(
          new Request(`${BASE}/api/v1/projects/announced-later/${path}`, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify(body),
          }),
          env as unknown as Env,
          context(),
        ),
        new Promise<never>((_, fail) =>
          setTimeout(() => fail(new Error(`${path}: no answer while the announcement is running`)), 5_000),
        ),
      ]);
    try {
      expect((await upload("contracts", ordersContract())).status).toBe(201);
      const snapshot = await upload("snapshots?commit=abc1234", violatingSnapshot());
      expect(snapshot.status).toBe(201);
      const { snapshot: stored } = (await snapshot.json()) as { snapshot: { id: number } };
      // Both answered; the announcements start a moment later, and are still held.
      await vi.waitFor(() =>
        expect(announced).toEqual(["contract acme/announced-later v1", `verdict acme/announced-later #${stored.id}`]),
      );
    } finally {
      release();
    }
    // The announcements were handed to the platform to finish after the answers, and they do.
    expect(background.length).toBeGreaterThanOrEqual(2);
    await Promise.all(background);
  });
});
